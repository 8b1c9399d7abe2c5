#!/usr/bin/env bash
# One client floods LoginGate with failed logins; another measures `ping` meanwhile.
#
#   Benchmarks/harness/loginflood.sh          # or: make bench-loginflood
#
# Starts tabd (TABD, default .build/release/tabd) with LoginGate from the directory tabd is
# in (user demo, password demo, like `make run`), then:
#   1. pings alone for FLOOD_SECONDS: p50/p99/max of one client's `ping` round trips
#      (loadgen -c 1 -P 1, back to back);
#   2. the same while loginflood keeps FLOOD_DEPTH failed logins in flight on one other
#      connection — wrong passwords for user names never used before, every FLOOD_EVERYth
#      one with a FLOOD_BIG-byte name;
#   3. tabd's VmRSS before and after the flood (and VmHWM, its peak).
#
# Environment (all optional):
#   TABD           the tabd binary; libLoginGate.so must be next to it (default .build/release/tabd)
#   FLOOD_SECONDS  seconds of each measurement (default 10)
#   FLOOD_DEPTH    login requests the attacker keeps in flight (default 16)
#   FLOOD_BIG      bytes added to the big user names (default 1000000; lines stay < 1 MiB)
#   FLOOD_EVERY    every FLOOD_EVERYth login has a big name (default 2; 0 = none)
#   FLOOD_SETTINGS extra LoginGate settings, YAML flow style without braces
#                  (e.g. "rate_burst: 1000000, max_hashes_per_second: 1000000")
#   FLOOD_PLUGIN   the plugin the logins are sent to (default login-gate; a name no plugin has
#                  measures what the request lines cost tabd without any plugin)
#   FLOOD_DIR      scratch directory (default a new one under /tmp; removed afterwards)
#
# Prints a small Markdown table with the command that produced it. Stops tabd and the
# attacker it started, whatever happens (trap).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT"

SECS=${FLOOD_SECONDS:-10}
DEPTH=${FLOOD_DEPTH:-16}
BIG=${FLOOD_BIG:-1000000}
EVERY=${FLOOD_EVERY:-2}
EXTRA=${FLOOD_SETTINGS:-}
PLUGIN=${FLOOD_PLUGIN:-login-gate}
TABD_BIN=${TABD:-.build/release/tabd}
BUILD=$ROOT/Benchmarks/.build/harness

CMD=""
for v in TABD FLOOD_SECONDS FLOOD_DEPTH FLOOD_BIG FLOOD_EVERY FLOOD_SETTINGS FLOOD_PLUGIN; do
    [ -n "${!v:-}" ] && CMD+="$v='${!v}' "
done
CMD+="Benchmarks/harness/loginflood.sh"

say() { printf '[loginflood] %s\n' "$*" >&2; }

[ -x "$TABD_BIN" ] || { say "no tabd at $TABD_BIN: run 'swift build -c release' (or set TABD)"; exit 1; }
PLUGIN_DIR=$(cd "$(dirname "$TABD_BIN")" && pwd)
[ -f "$PLUGIN_DIR/libLoginGate.so" ] || { say "no libLoginGate.so next to $TABD_BIN"; exit 1; }
command -v openssl >/dev/null || { say "openssl is missing (apt-get install openssl)"; exit 1; }
make -s -C "$HERE" ../.build/harness/loadgen ../.build/harness/loginflood >&2

DIR=${FLOOD_DIR:-$(mktemp -d /tmp/tabd-flood-XXXXXX)}
mkdir -p "$DIR"
TABD_PID="" FLOOD_PID=""
cleanup() {
    [ -n "$FLOOD_PID" ] && kill "$FLOOD_PID" 2>/dev/null || true
    if [ -n "$TABD_PID" ]; then kill "$TABD_PID" 2>/dev/null || true; wait "$TABD_PID" 2>/dev/null || true; fi
    [ -z "${FLOOD_DIR:-}" ] && rm -rf "$DIR"
}
trap cleanup EXIT

printf 'demo:%s\n' "$(openssl passwd -6 demo)" > "$DIR/credentials"
chmod 600 "$DIR/credentials"
cat > "$DIR/tabd.yaml" <<EOF
log_level: error
plugins:
  directories: [$PLUGIN_DIR]
  load:
    - path: libLoginGate.so
      required: true
      settings: {login_tab: login, credentials_file: $DIR/credentials${EXTRA:+, $EXTRA}}
EOF
SOCK=$DIR/tabd.sock
"$TABD_BIN" --config "$DIR/tabd.yaml" --socket "$SOCK" --state-dir "$DIR/state" 2>"$DIR/tabd.log" &
TABD_PID=$!
for _ in $(seq 200); do
    [ -S "$SOCK" ] && "$BUILD/loadgen" -s "$SOCK" -c 1 -d 0.1 -w 0 -r '{"cmd":"ping"}' >/dev/null 2>&1 && break
    kill -0 "$TABD_PID" 2>/dev/null || { say "tabd exited: $(cat "$DIR/tabd.log")"; exit 1; }
    sleep 0.05
done

rss() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$TABD_PID/status"; }
field() { tr ' ' '\n' <<<"$2" | awk -F= -v k="$1" '$1 == k { print $2 }'; }
ping() { "$BUILD/loadgen" -s "$SOCK" -c 1 -P 1 -d "$SECS" -w 1 -r '{"cmd":"ping"}' -e '"ok":false'; }

say "tabd $TABD_BIN (pid $TABD_PID), $SECS s per measurement"
say "pings alone"
ALONE=$(ping)
RSS0=$(rss VmRSS)

say "pings while one client floods failed logins (depth $DEPTH, every $EVERY with $BIG more bytes of name)"
"$BUILD/loginflood" -s "$SOCK" -d $((SECS + 2)) -P "$DEPTH" -b "$BIG" -B "$EVERY" -p "$PLUGIN" > "$DIR/flood.out" &
FLOOD_PID=$!
FLOODED=$(ping)
wait "$FLOOD_PID" || true
FLOOD_PID=""
FLOOD=$(cat "$DIR/flood.out")
RSS1=$(rss VmRSS)
HWM=$(rss VmHWM)

row() { printf '| %s | %s | %s | %s | %s |\n' "$1" "$(field ops_per_sec "$2")" "$(field p50_us "$2")" "$(field p99_us "$2")" "$(field max_us "$2")"; }
echo "\`$CMD\` ($(date -u +%F), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| ping, one client | pings/s | p50 µs | p99 µs | max µs |"
echo "|---|---:|---:|---:|---:|"
row "alone" "$ALONE"
row "during the login flood" "$FLOODED"
echo
echo "Attacker: $FLOOD"
echo
echo "tabd VmRSS: $RSS0 kB before the flood, $RSS1 kB after (+$((RSS1 - RSS0)) kB); VmHWM $HWM kB."
