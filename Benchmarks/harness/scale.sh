#!/usr/bin/env bash
# How a change's cost grows with the controller (issue 41, "A change costs what it changes"):
# user-space instructions per request counted by callgrind (Benchmarks/harness/instructions.sh,
# its scale-* modes), for a controller of 6 flat tabs and of N, in the same run, and the ratio.
#
#   Benchmarks/harness/scale.sh [SECONDS]     (default 3 seconds a run; TABD=path, MODES=...)
#
# The targets: select, tap, badge, update_tab of one tab, push + pop at N = 10,000 within 1.5x
# of N = 6; add_tab + remove_tab and customize.move at N = 1,000 within 5x (customize.move in
# both forms of its reply: with the whole customizing order, and "brief"). Prints one line a
# request and exits 1 when a ratio is above its target (so a regression shows).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SECS=${1:-3}
MODES=${MODES:-"select tap badge update-tab push-pop add-remove customize-move customize-move-brief"}
fail=0
# measure TABS MODE: instructions per request. A request slow under valgrind (seconds at 10,000
# tabs before issue 41) may leave the measured loop without a request answered: each retry
# runs three times longer.
measure() {
    local secs=$SECS figure
    for _ in 1 2 3; do
        figure=$(TABS=$1 "$HERE/instructions.sh" "$secs" "$2" 2>/dev/null | sed -n 's/.*: \([0-9]*\) instructions per.*/\1/p')
        [ -z "$figure" ] || { echo "$figure"; return; }
        secs=$((secs * 3))
    done
    echo "no figure for $2 at $1 tabs after three tries" >&2
    exit 1
}
printf '%-20s %8s %14s %14s %7s %7s\n' request N "instr (N=6)" "instr (N)" ratio target
for m in $MODES; do
    # customize.move with its whole customizing order is measured beside its brief form, which
    # the target is for: a reply of 1,000 ids costs about 50 instructions an id however it is
    # written (BENCHMARKS.md), so only a reply without them can cost what the move changes.
    case "$m" in add-remove|customize-move-brief) n=1000; target=5.0 ;; customize-move) n=1000; target=- ;; *) n=10000; target=1.5 ;; esac
    small=$(measure 6 "scale-$m")
    large=$(measure "$n" "scale-$m")
    ratio=$(awk -v a="$small" -v b="$large" 'BEGIN { printf "%.2f", b / a }')
    ok=$(awk -v r="$ratio" -v t="$target" 'BEGIN { print (t == "-" || r <= t) ? "" : "  ABOVE TARGET" }')
    [ -z "$ok" ] || fail=1
    printf '%-20s %8d %14d %14d %6sx %7s%s\n' "$m" "$n" "$small" "$large" "$ratio" "$([ "$target" = - ] && echo none || echo "${target}x")" "$ok"
done
echo "tabd at git $(git -C "$HERE/../.." rev-parse --short HEAD 2>/dev/null || echo '?'), $(date -u +%F), $SECS s a run"
exit $fail
