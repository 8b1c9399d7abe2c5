#!/usr/bin/env bash
# tabd against the libevent floor in alternating pairs: floor, then tabd, N times, each on a
# fresh server, each the same load (`select` a / b in turn, c connections x P in flight).
# The harness (run.sh) measures every floor case before every tabd case, minutes apart; on
# a shared 2-core VM the machine can change in between, and so can the ratio. Here the two
# runs of a pair are seconds apart.
#
#   Benchmarks/harness/floor-pairs.sh [PAIRS] [SECONDS]      (defaults 6, 5; make bench-pairs)
#
# Settings: BENCH_CONNS (50), BENCH_DEPTH (16), BENCH_FSYNC (everysec), TABD (path).
# Prints each pair's ops/s and ratio, then the median ratio.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PAIRS=${1:-6}
SECS=${2:-5}
CONNS=${BENCH_CONNS:-50}
DEPTH=${BENCH_DEPTH:-16}
FSYNC=${BENCH_FSYNC:-everysec}
TABD=${TABD:-$ROOT/.build/release/tabd}
BUILD=$ROOT/Benchmarks/.build/harness

[ -x "$TABD" ] || { echo "no tabd at $TABD: run 'swift build -c release' first" >&2; exit 1; }
make -s -C "$HERE" >/dev/null

DIR=$(mktemp -d)
PID=""
trap '[ -z "$PID" ] || kill "$PID" 2>/dev/null || true; rm -rf "$DIR"' EXIT
SETUP='{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"},{"id":"e"},{"id":"f"}]}'
printf '{"cmd":"select","tab":"a"}\n{"cmd":"select","tab":"b"}\n' > "$DIR/select.req"

# load SOCKET [loadgen args...]: ops/s of one measured run
load() {
    local sock=$1; shift
    for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
    "$BUILD/loadgen" -s "$sock" -c "$CONNS" -P "$DEPTH" -d "$SECS" -w 1 -e '"ok":false' -R "$DIR/select.req" "$@" \
        | grep -o 'ops_per_sec=[0-9]*' | cut -d= -f2
}
stop() { kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""; }

echo "floor vs tabd (fsync $FSYNC), c=$CONNS P=$DEPTH, $SECS s a run, $PAIRS pairs"
ratios=()
for i in $(seq "$PAIRS"); do
    rm -f "$DIR/floor.sock"
    "$BUILD/floor" "$DIR/floor.sock" & PID=$!
    f=$(load "$DIR/floor.sock"); stop
    rm -rf "$DIR/state" "$DIR/tabd.sock"
    "$TABD" --socket "$DIR/tabd.sock" --state-dir "$DIR/state" --fsync "$FSYNC" --log-level warning & PID=$!
    t=$(load "$DIR/tabd.sock" --setup "$SETUP"); stop
    r=$(awk -v t="$t" -v f="$f" 'BEGIN { printf "%.3f", t / f }')
    ratios+=("$r")
    echo "pair $i: floor $f ops/s, tabd $t ops/s, tabd/floor $r"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "median tabd/floor: %s (min %s, max %s)\n", (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2), a[1], a[NR] }'
