#!/usr/bin/env bash
# Nested select (R13) against flat select, in alternating pairs on one fresh tabd each:
# the same `select` of a and b in turn, once on six flat tabs and once with a and b each
# the child of a group. Pairs, not one run each, because this machine's throughput drifts
# by more than the difference being measured.
#
#   Benchmarks/harness/nested-pairs.sh [ROUNDS] [SECONDS] [KIND]     (defaults 3, 4, select)
#
# KIND `tap`: a flat `tap` of a and b against a `tap` of the groups g1 and g2 (each lands on
# its selected child, a or b: SEMANTICS R13.8's tap on a group).
#
# Needs .build/release/tabd (`swift build -c release`) and the harness's loadgen
# (built by Benchmarks/harness/run.sh or `make -C Benchmarks/harness`).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
ROUNDS=${1:-3}
SECS=${2:-4}
KIND=${3:-select}
TABD=${TABD:-$ROOT/.build/release/tabd}
make -s -C "$HERE" >/dev/null
LOADGEN=$ROOT/Benchmarks/.build/harness/loadgen
D=$(mktemp -d)
P=""
trap '[ -z "$P" ] || kill "$P" 2>/dev/null || true; rm -rf "$D"' EXIT
if [ "$KIND" = tap ]; then
    printf '{"cmd":"tap","tab":"a"}\n{"cmd":"tap","tab":"b"}\n' >"$D/flat.req"
    printf '{"cmd":"tap","tab":"g1"}\n{"cmd":"tap","tab":"g2"}\n' >"$D/nested.req"
else
    printf '{"cmd":"select","tab":"a"}\n{"cmd":"select","tab":"b"}\n' >"$D/flat.req"
    cp "$D/flat.req" "$D/nested.req"
fi
FLAT='{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"},{"id":"e"},{"id":"f"}]}'
NESTED='{"cmd":"set_tabs","tabs":[{"id":"g1","children":[{"id":"a"},{"id":"x"}]},{"id":"g2","children":[{"id":"b"},{"id":"y"}]},{"id":"c"},{"id":"d"},{"id":"e"},{"id":"f"}]}'
echo "tabd at git $(git -C "$ROOT" rev-parse --short HEAD): $KIND, $ROUNDS rounds of ${SECS} s per case; ops/s"
printf '%-10s %12s %12s %8s\n' case flat nested ratio
for cp in "1 1" "50 1" "50 16"; do
    read -r c p <<<"$cp"
    sum_f=0; sum_n=0
    for _ in $(seq "$ROUNDS"); do
        for kind in FLAT NESTED; do
            rm -rf "$D/state" "$D/t.sock"
            "$TABD" --socket "$D/t.sock" --state-dir "$D/state" --fsync everysec --log-level warning & P=$!
            for _ in $(seq 100); do [ -S "$D/t.sock" ] && break; sleep 0.05; done
            out=$("$LOADGEN" -s "$D/t.sock" -c "$c" -P "$p" -d "$SECS" -w 1 -R "$D/$(tr A-Z a-z <<<"$kind").req" --setup "${!kind}" -e '"ok":false')
            ops=$(tr ' ' '\n' <<<"$out" | sed -n 's/^ops_per_sec=//p')
            kill "$P"; wait "$P" 2>/dev/null || true; P=""
            if [ "$kind" = FLAT ]; then sum_f=$((sum_f + ${ops%.*})); else sum_n=$((sum_n + ${ops%.*})); fi
        done
    done
    awk -v c="c=$c P=$p" -v f="$sum_f" -v n="$sum_n" -v r="$ROUNDS" 'BEGIN { printf "%-10s %12.0f %12.0f %7.3f×\n", c, f / r, n / r, n / f }'
done
