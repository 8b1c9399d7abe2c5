#!/usr/bin/env bash
# `state` of a 6-tab controller against Redis `GET` of a value as long as its reply, and
# optionally against another tabd, in alternating runs (the machine's drift lands on every
# side alike): the latency-bound case (c=50, one request in flight) that `make bench` measures
# once per run.
#
#   Benchmarks/harness/state-vs-get.sh [ROUNDS]        (default 3 rounds of 4 s runs)
#
# Environment: TABD (default .build/release/tabd), OTHER_TABD (another build to compare, e.g.
# an older commit's; optional), C and P (default 50 and 1).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
ROUNDS=${1:-3}
TABD=${TABD:-$ROOT/.build/release/tabd}
C=${C:-50}; P=${P:-1}
LOADGEN=$ROOT/Benchmarks/.build/harness/loadgen
[ -x "$LOADGEN" ] || make -s -C "$ROOT/Benchmarks/harness" >/dev/null 2>&1 || { echo "build loadgen first (make bench-instructions builds it)" >&2; exit 1; }
command -v redis-server >/dev/null || { echo "redis-server is missing (make bench installs it)" >&2; exit 1; }
DIR=$(mktemp -d)
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$DIR"' EXIT
redis-server --port 0 --unixsocket "$DIR/r.sock" --appendonly yes --appendfsync everysec --dir "$DIR" --save '' --daemonize no >/dev/null 2>&1 & PIDS+=($!)
"$TABD" --socket "$DIR/t.sock" --state-dir "$DIR/state" --fsync everysec --log-level warning 2>/dev/null & PIDS+=($!)
[ -z "${OTHER_TABD:-}" ] || { "$OTHER_TABD" --socket "$DIR/o.sock" --state-dir "$DIR/ostate" --fsync everysec --log-level warning 2>/dev/null & PIDS+=($!); }
sleep 1
SETUP='{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"},{"id":"e"},{"id":"f"}]}'
BYTES=$(printf '%s\n%s\n' "$SETUP" '{"cmd":"state"}' | socat -t 5 - "UNIX-CONNECT:$DIR/t.sock" | tail -n 1 | tr -d '\n' | wc -c)
VALUE=$(head -c "$BYTES" /dev/zero | tr '\0' 'x')
ops() { tr ' ' '\n' | sed -n 's/^ops_per_sec=//p'; }
state() { "$LOADGEN" -s "$1" -c "$C" -P "$P" -d 4 -w 1 -r '{"cmd":"state"}' --setup "$SETUP" -e '"ok":false' | ops; }
echo "state ($BYTES-byte reply) against GET, c=$C P=$P, ops/s per 4 s run:"
for _ in $(seq "$ROUNDS"); do
    t=$(state "$DIR/t.sock")
    r=$("$LOADGEN" -s "$DIR/r.sock" -c "$C" -P "$P" -d 4 -w 1 -e -ERR -r 'GET k' --reply-lines 2 --setup "SET k $VALUE" | ops)
    line="tabd $t, redis GET $r ($(awk -v a="$t" -v b="$r" 'BEGIN { printf "%.2f", a / b }')x)"
    if [ -n "${OTHER_TABD:-}" ]; then
        o=$(state "$DIR/o.sock")
        line+=", other tabd $o ($(awk -v a="$o" -v b="$r" 'BEGIN { printf "%.2f", a / b }')x)"
    fi
    echo "$line"
done
