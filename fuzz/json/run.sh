#!/usr/bin/env bash
# Builds the JSON codec with libFuzzer + AddressSanitizer and fuzzes it.
#   fuzz/json/run.sh            60 seconds
#   fuzz/json/run.sh 600        ten minutes
# Crashes are written to fuzz/json/crashes/ (a reproducer per crash: run the binary with
# the file as its argument). The seed corpus is fuzz/json/corpus/; new inputs libFuzzer
# finds go to a scratch corpus so the repository's stays small.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
out=${TMPDIR:-/tmp}/tabd-jsonfuzz
mkdir -p "$out/corpus" fuzz/json/crashes
swiftc -O -g -sanitize=fuzzer,address -parse-as-library \
    Sources/TabJSON/*.swift fuzz/json/fuzz.swift -o "$out/fuzz-json"
"$out/fuzz-json" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -dict=fuzz/json/json.dict -artifact_prefix=fuzz/json/crashes/ -print_final_stats=1 \
    "$out/corpus" fuzz/json/corpus
