#!/usr/bin/env bash
# Builds the state directory reader (TabState, with TabCore, TabProtocol and swift-log) with
# libFuzzer + AddressSanitizer and fuzzes StateStore.recover (fuzz/journal/fuzz.swift).
#   fuzz/journal/run.sh            60 seconds
#   fuzz/journal/run.sh 600        ten minutes
# Crashes are written to fuzz/journal/crashes/ (a reproducer per crash: run the binary with
# the file as its argument, e.g. "$TMPDIR/tabd-journalfuzz/fuzz-journal crash-…"). The seed
# corpus is fuzz/journal/corpus/; new inputs libFuzzer finds go to a scratch corpus so the
# repository's stays small. The state directories it writes live on /dev/shm when there is one.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
out=${TMPDIR:-/tmp}/tabd-journalfuzz
mkdir -p "$out/corpus" "$out/modules" fuzz/journal/crashes
[ -d .build/checkouts/swift-log/Sources/Logging ] || swift package resolve
flags=(-O -g -sanitize=fuzzer,address -parse-as-library -I "$out/modules")

# One static library and module per package module, in dependency order, as SwiftPM would.
module() {
    local name=$1; shift
    swiftc "${flags[@]}" -module-name "$name" -emit-module -emit-module-path "$out/modules/$name.swiftmodule" \
        -emit-library -static -o "$out/lib$name.a" "$@"
}
module Logging -swift-version 6 -package-name swift_log \
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility \
    -enable-upcoming-feature InternalImportsByDefault \
    $(find .build/checkouts/swift-log/Sources/Logging -name '*.swift')
module TabCore -swift-version 5 Sources/TabCore/*.swift
module TabProtocol -swift-version 5 $(find Sources/TabProtocol -name '*.swift')
module TabState -swift-version 5 -I Sources/CLibevent Sources/TabState/*.swift
swiftc "${flags[@]}" -swift-version 5 -I Sources/CLibevent fuzz/journal/fuzz.swift \
    "$out/libTabState.a" "$out/libTabProtocol.a" "$out/libTabCore.a" "$out/libLogging.a" \
    $(pkg-config --libs libevent) -o "$out/fuzz-journal"

base=/dev/shm; [ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
scratch=$(mktemp -d "$base/tabd-journalfuzz.XXXXXX")
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}  # libFuzzer and ASan report the crash; the backtracer only slows it
trap 'rm -rf "$scratch"' EXIT
TABD_FUZZ_DIR=$scratch "$out/fuzz-journal" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -dict=fuzz/journal/journal.dict -artifact_prefix=fuzz/journal/crashes/ -print_final_stats=1 \
    "$out/corpus" fuzz/journal/corpus
