#!/usr/bin/env bash
# Instructions per recorded latency: tabd's LatencyHistogram against HdrHistogram
# (hdrhistogram-swift 0.2.0), each called once per value for a million values under
# callgrind (inclusive instructions of the call, call and return included).
set -euo pipefail
cd "$(dirname "$0")"
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 1; }
swift build -c release --quiet >/dev/null
BIN=.build/release/HistogramCost
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
# valgrind 3.19 cannot read Swift 6's DWARF 5: run a copy without debug sections.
objcopy --strip-debug "$BIN" "$OUT.bin"
trap 'rm -f "$OUT" "$OUT.bin"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$OUT" "$OUT.bin" 2>/dev/null
callgrind_annotate --inclusive=yes "$OUT" 2>/dev/null | swift demangle --simplified | awk '
    /recordLogLinear\(/ && !a { gsub(",", "", $1); printf "LatencyHistogram.record: %.1f instructions per value\n", $1 / 1000000; a = 1 }
    /HdrLatency.record\(/ && !b { gsub(",", "", $1); printf "HdrHistogram.record (+ the sum): %.1f instructions per value\n", $1 / 1000000; b = 1 }'
