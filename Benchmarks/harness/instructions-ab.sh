#!/usr/bin/env bash
# Two builds of tabd in the same sitting, instructions per request counted by callgrind
# (Benchmarks/harness/instructions.sh), their runs alternated: the figure for "this change
# costs no more than N% on ...", since callgrind's counts hardly move with the load but do
# move a little between sittings (ASLR, the hash seeds of the runtime's dictionaries).
#
#   BEFORE=path/to/tabd [AFTER=path/to/tabd] Benchmarks/harness/instructions-ab.sh [SECONDS] [ROUNDS] [MODES]
#
# AFTER defaults to this tree's .build/release/tabd; each build's LoginGate is read from
# beside its tabd (the `tap` mode). MODES (default "select tap state"; `select` is
# instructions.sh's default mode, the others its mode names) are measured ROUNDS times each
# (default 2), before then after. Prints every figure, then per mode the mean of each build
# and the change in %.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SECS=${1:-4}
ROUNDS=${2:-2}
MODES=${3:-"select tap state"}
: "${BEFORE:?BEFORE=path of the tabd to compare against}"
AFTER=${AFTER:-$ROOT/.build/release/tabd}
figure() {
    local mode=$2
    [ "$mode" != select ] || mode=""
    TABD=$1 "$HERE/instructions.sh" "$SECS" $mode 2>/dev/null | sed -n 's/.*: \([0-9]*\) instructions per.*/\1/p'
}
declare -A sum
for m in $MODES; do
    sum[$m,b]=0; sum[$m,a]=0
    for r in $(seq "$ROUNDS"); do
        b=$(figure "$BEFORE" "$m"); a=$(figure "$AFTER" "$m")
        [ -n "$b" ] && [ -n "$a" ] || { echo "$m: no figure (before '$b', after '$a')" >&2; exit 1; }
        printf '%-8s round %d: before %7d  after %7d\n' "$m" "$r" "$b" "$a"
        sum[$m,b]=$((sum[$m,b] + b)); sum[$m,a]=$((sum[$m,a] + a))
    done
done
printf '%-8s %10s %10s %8s\n' mode before after change
for m in $MODES; do
    awk -v m="$m" -v b="${sum[$m,b]}" -v a="${sum[$m,a]}" -v n="$ROUNDS" \
        'BEGIN { printf "%-8s %10d %10d %+7.1f%%\n", m, b / n, a / n, (a - b) * 100 / b }'
done
echo "before: $BEFORE; after: $AFTER; $(date -u +%F), $SECS s a run, $ROUNDS rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
