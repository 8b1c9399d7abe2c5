#!/usr/bin/env bash
# What isolating a plugin costs a tap: p50 of `tap` at one connection, one request in flight
# (c=1), through the same plugin in-process and with `isolation: process`.
#
#   Benchmarks/harness/isolation.sh [SECONDS]      (default 5; `make bench-isolation`)
#
# The plugin is Tests/EndToEndTests/Fixtures/gate.c answering TABD_ALLOW (no logging, no
# events: the cost measured is the hook's path, not the plugin's work). Each run starts
# tabd (.build/release/tabd, or TABD=path) on a fresh state directory with fsync no, sets
# six tabs, and has loadgen tap a and b in turn; it prints loadgen's line for each and the
# difference of the p50s.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TABD=${TABD:-$ROOT/.build/release/tabd}
[ -x "$TABD" ] || { echo "no tabd at $TABD: run 'swift build -c release' first" >&2; exit 1; }
make -s -C "$ROOT/Benchmarks/harness" >/dev/null  # loadgen, into Benchmarks/.build/harness
SECS=${1:-5}

DIR=$(mktemp -d /tmp/tabd-bench-iso.XXXXXX)
chmod 755 "$DIR"
PID=""
trap '[ -z "$PID" ] || kill "$PID" 2>/dev/null || true; rm -rf "$DIR"' EXIT
cc -O2 -shared -fPIC -I "$ROOT/Sources/CTabPolicy/include" -DRESULT=TABD_ALLOW -DNAME='"allow"' \
    "$ROOT/Tests/EndToEndTests/Fixtures/gate.c" -o "$DIR/allow.so"
SETUP='{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"},{"id":"e"},{"id":"f"}]}'
printf '{"cmd":"tap","tab":"a"}\n{"cmd":"tap","tab":"b"}\n' > "$DIR/tap.req"

# run ISOLATION: prints loadgen's result line
run() {
    rm -rf "$DIR/state" "$DIR/tabd.sock"
    printf 'plugins:\n  directories: [%s]\n  load:\n    - path: allow.so\n      isolation: %s\n' "$DIR" "$1" > "$DIR/tabd.yaml"
    "$TABD" --config "$DIR/tabd.yaml" --socket "$DIR/tabd.sock" --state-dir "$DIR/state" --fsync no --log-level warning &
    PID=$!
    for _ in $(seq 200); do [ -S "$DIR/tabd.sock" ] && break; sleep 0.05; done
    "$ROOT/Benchmarks/.build/harness/loadgen" -s "$DIR/tabd.sock" -c 1 -P 1 -d "$SECS" -w 1 -R "$DIR/tap.req" --setup "$SETUP" -e '"ok":false'
    kill "$PID"; wait "$PID" 2>/dev/null || true
    PID=""
}

in=$(run none)
iso=$(run process)
p50() { sed -n 's/.*p50_us=\([0-9.]*\).*/\1/p' <<<"$1"; }
echo "tabd at git $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), tap at c=1, $SECS s each:"
echo "  in-process:        $in"
echo "  isolation process: $iso"
echo "  p50 difference: $(awk -v a="$(p50 "$in")" -v b="$(p50 "$iso")" 'BEGIN { printf "%.1f", b - a }') µs"
