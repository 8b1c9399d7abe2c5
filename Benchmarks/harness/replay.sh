#!/usr/bin/env bash
# How long tabd takes to start on a full journal: replaying `limits.compact_bytes` (64 MiB by
# default) of records, the most a start can find after the last snapshot.
#
#   Benchmarks/harness/replay.sh [MIB] [RUNS]        (defaults 64 and 5)
#
# Fills a journal with `select` records (a / b in turn, the smallest record; about 48 bytes
# each) until it holds MIB MiB, stops tabd, then starts it RUNS times on that state directory
# (SIGTERM in between: a start replays, a stop writes nothing) and prints each time from exec
# to the first answered `ping`, and the median. Uses .build/release/tabd (or TABD=path).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
MIB=${1:-64}
RUNS=${2:-5}
TABD=${TABD:-$ROOT/.build/release/tabd}
[ -x "$TABD" ] || { echo "no tabd at $TABD: run 'swift build -c release' first" >&2; exit 1; }
command -v socat >/dev/null || { echo "socat is needed (apt-get install socat)" >&2; exit 1; }

DIR=$(mktemp -d)
PID=""
trap '[ -z "$PID" ] || kill "$PID" 2>/dev/null || true; rm -rf "$DIR"' EXIT
# No compaction below 2x the target: the journal keeps everything.
printf 'fsync: no\nlimits:\n  compact_bytes: %d\n' $((MIB * 2 << 20)) > "$DIR/tabd.yaml"

start() {
    "$TABD" --config "$DIR/tabd.yaml" --socket "$DIR/tabd.sock" --state-dir "$DIR/state" 2>>"$DIR/log" &
    PID=$!
}
ask() { echo "$1" | socat -t 30 - "UNIX-CONNECT:$DIR/tabd.sock"; }
wait_ping() { until ask '{"cmd":"ping"}' >/dev/null 2>&1; do sleep 0.002; done; }
stop() { kill -TERM "$PID"; wait "$PID" 2>/dev/null || true; PID=""; }

start; wait_ping
ask '{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}' >/dev/null
# 100,000 selects a batch, until the journal holds MIB MiB.
python3 -c 'import sys; sys.stdout.write("".join("{\"cmd\":\"select\",\"tab\":\"%s\"}\n" % "ab"[i % 2] for i in range(100000)))' > "$DIR/batch"
bytes() { ask '{"cmd":"stats"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["journal"]["bytes"])'; }
while [ "$(bytes)" -lt $((MIB << 20)) ]; do
    socat -t 60 - "UNIX-CONNECT:$DIR/tabd.sock" < "$DIR/batch" > /dev/null
done
records=$(ask '{"cmd":"stats"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["journal"]["seq"])')
journal_bytes=$(bytes)
stop

times=()
for _ in $(seq "$RUNS"); do
    t0=$(date +%s%N)
    start; wait_ping
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000000 )))
    stop
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
median=$(echo "$sorted" | sed -n "$(( (RUNS + 1) / 2 ))p")
echo "replay: $journal_bytes journal bytes, $records records; start to first ping (ms): ${times[*]}; median $median ms"
