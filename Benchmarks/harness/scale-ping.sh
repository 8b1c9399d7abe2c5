#!/usr/bin/env bash
# Another client's `ping` while one client changes a 10,000-tab controller as fast as it can
# (issue 41: its p99 must stay under 10 ms).
#
#   Benchmarks/harness/scale-ping.sh        # or: make bench-scale (after scale.sh)
#
# Starts tabd (TABD, default .build/release/tabd; no plugins, fsync everysec) with a controller
# of SCALE_TABS (default 10000) flat tabs, then for SCALE_SECONDS (default 10) each:
#   1. one client's `ping` round trips alone (loadgen -c 1 -P 1, back to back);
#   2. the same while another connection keeps 16 `badge` requests of one tab in flight;
#   3. the same while another connection keeps 16 `add_tab` / `remove_tab` in flight.
# Prints a Markdown table (p50/p99/max of ping, the flood's ops/s) with the command.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SECS=${SCALE_SECONDS:-10}
N=${SCALE_TABS:-10000}
TABD_BIN=${TABD:-$ROOT/.build/release/tabd}
BUILD=$ROOT/Benchmarks/.build/harness
[ -x "$TABD_BIN" ] || { echo "no tabd at $TABD_BIN: run 'swift build -c release' first" >&2; exit 1; }
make -s -C "$HERE" >/dev/null

DIR=$(mktemp -d /tmp/tabd-scale-XXXXXX)
TABD_PID="" FLOOD_PID=""
trap '[ -z "$FLOOD_PID" ] || kill "$FLOOD_PID" 2>/dev/null || true; [ -z "$TABD_PID" ] || kill "$TABD_PID" 2>/dev/null || true; rm -rf "$DIR"' EXIT
printf 'limits:\n  max_tabs: %d\n  max_total_tabs: %d\n  max_line_bytes: %d\n' "$((N + 10))" "$((N + 10))" $((64 << 20)) > "$DIR/scale.yaml"
"$TABD_BIN" --socket "$DIR/tabd.sock" --state-dir "$DIR/state" --fsync everysec --log-level warning --config "$DIR/scale.yaml" &
TABD_PID=$!
for _ in $(seq 300); do [ -S "$DIR/tabd.sock" ] && break; sleep 0.1; done
ask() { echo "$1" | socat -t 120 - "UNIX-CONNECT:$DIR/tabd.sock"; }
ask "$(awk -v n="$N" 'BEGIN { printf "{\"cmd\":\"set_tabs\",\"tabs\":["; for (i = 0; i < n; i++) printf "%s{\"id\":\"t%d\"}", (i ? "," : ""), i; printf "]}" }')" \
    | grep -q '"ok":true' || { echo "the set_tabs of $N tabs failed" >&2; exit 1; }

printf '{"cmd":"badge","tab":"t1","value":"1"}\n{"cmd":"badge","tab":"t1","value":"2"}\n' > "$DIR/badge.req"
printf '{"cmd":"add_tab","tab":{"id":"x"}}\n{"cmd":"remove_tab","tab":"x"}\n' > "$DIR/addremove.req"
ping() { "$BUILD/loadgen" -s "$DIR/tabd.sock" -c 1 -P 1 -d "$SECS" -w 1 -r '{"cmd":"ping"}'; }
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }

echo "| while | ping p50 (µs) | ping p99 (µs) | ping max (µs) | the other client's ops/s |"
echo "|---|---:|---:|---:|---:|"
alone=$(ping)
echo "| nothing else | $(field p50_us <<<"$alone") | $(field p99_us <<<"$alone") | $(field max_us <<<"$alone") | — |"
for flood in badge addremove; do
    "$BUILD/loadgen" -s "$DIR/tabd.sock" -c 1 -P 16 -d $((SECS + 2)) -w 1 -R "$DIR/$flood.req" -e '"ok":false' > "$DIR/$flood.out" &
    FLOOD_PID=$!
    p=$(ping)
    wait "$FLOOD_PID"; FLOOD_PID=""
    what=$([ $flood = badge ] && echo "badge of one tab" || echo "add_tab + remove_tab")
    echo "| $what, $N tabs | $(field p50_us <<<"$p") | $(field p99_us <<<"$p") | $(field max_us <<<"$p") | $(field ops_per_sec < "$DIR/$flood.out") (errors $(field errors < "$DIR/$flood.out")) |"
done
echo
echo "tabd at git $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), $(date -u +%F): Benchmarks/harness/scale-ping.sh (SCALE_SECONDS=$SECS SCALE_TABS=$N)"
