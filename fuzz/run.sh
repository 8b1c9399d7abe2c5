#!/usr/bin/env bash
# Builds every fuzz target (fuzz/Package.swift: tabd's own module graph, every module compiled
# with -sanitize=fuzzer,address) and runs them one after the other.
#   fuzz/run.sh                      every target, FUZZ_SECONDS each (default 60)
#   fuzz/run.sh request config       those targets
#   FUZZ_SECONDS=600 fuzz/run.sh journal
#   FUZZ_JOBS=2 fuzz/run.sh ...      that many targets at once
#   FUZZ_QUICK=1 fuzz/run.sh         the targets built unoptimized, in fuzz/.build-quick (a
#                                    smoke run's build: less work to compile, slower to run)
#   FUZZ_BUILD_ONLY=1 fuzz/run.sh    build the targets, run none
# make fuzz runs it optimized; make test builds the targets with FUZZ_QUICK=1 and runs each for
# FUZZ_SECONDS=3, so that a target that stops building, or that crashes on its corpus, fails CI.
# Needs tabd's debug build (.build/debug: tabd and the reference plugins), from which
# fuzz/seed.py writes the generated seeds (every request of the docs, real state directories).
# A crash is written to fuzz/<target>/crashes/ and the script exits 1 after the other targets
# ran; run ".build/release/fuzz-<target> <crash file>" in fuzz/ (.build-quick/release/… after FUZZ_QUICK=1) to reproduce it.
# Each run's figures (executions, coverage, corpus) go to fuzz/.build/runs/<target>.log.
set -uo pipefail
cd "$(dirname "$0")"
seconds=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-1}
all=(json journal request config helper-wire json-helpers)
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

for t in "${all[@]}"; do mkdir -p "$t/crashes"; done   # fuzz/Package.swift excludes them
[ -x ../.build/debug/tabd ] || { echo "fuzz/run.sh: build tabd first (swift build, or make build)" >&2; exit 2; }
# Quick: -Onone in a release build (a debug build renames an executable's main for testing, and
# the linker then takes libFuzzer's main, which wants a LLVMFuzzerTestOneInput we do not define).
build=.build opt=()
[ -n "${FUZZ_QUICK:-}" ] && build=.build-quick opt=(-Xswiftc -Onone)
echo "fuzz/run.sh: building the fuzz targets ($build, ${FUZZ_QUICK:+un}optimized, libFuzzer + ASan)"
swift build -c release --build-path "$build" "${opt[@]}" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing -Xswiftc -use-ld=lld \
    -Xcc -fsanitize=fuzzer-no-link,address 2>&1 | grep -Ev '^\[[0-9]+/[0-9]+\]|^(Building|Compiling|Write|Linking)' 
[ "${PIPESTATUS[0]}" = 0 ] || { echo "fuzz/run.sh: a fuzz target does not build" >&2; exit 1; }
bin=$build/release
[ -n "${FUZZ_BUILD_ONLY:-}" ] && exit 0

work=$(mktemp -d "${TMPDIR:-/tmp}/tabd-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p .build/runs .build/corpus "$work/plugins"
chmod 755 "$work" "$work/plugins"
python3 seed.py ../.build/debug/tabd "$PWD/../.build/debug" "$work/seeds" || exit 1
# json-helpers: the fixture plugin, built as a plugin author builds one (policy.h alone).
cc -shared -fPIC -Wall -Werror -I ../Sources/CTabPolicy/include ../Tests/EndToEndTests/Fixtures/json.c -o "$work/plugins/json.so" || exit 1

export SWIFT_BACKTRACE=enable=no   # libFuzzer and ASan report a crash; the backtracer only slows it
export TABD_FUZZ_PLUGINS="$work/plugins" TABD_FUZZ_DIR="$work"

run() {
    local t=$1 max_len=4096
    [ "$t" = journal ] && max_len=8192
    local dict=(); [ -f "$t/$t.dict" ] && dict=(-dict="$t/$t.dict")
    local seeds=(); [ -d "$work/seeds/$t" ] && seeds=("$work/seeds/$t")
    mkdir -p "$t/crashes" ".build/corpus/$t"
    # The scratch corpus keeps what a run found for the next run (fuzz/.build, not committed).
    "$bin/fuzz-$t" -max_total_time="$seconds" -max_len=$max_len -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$t/crashes/" -print_final_stats=1 "${dict[@]}" \
        ".build/corpus/$t" "$t/corpus" "${seeds[@]}" > ".build/runs/$t.log" 2>&1
    local status=$?
    local line; line=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' ".build/runs/$t.log" | tail -1)
    local execs; execs=$(sed -n 's/^stat::number_of_executed_units: *//p' ".build/runs/$t.log")
    if [ $status = 0 ]; then
        echo "fuzz $t: ok, ${execs:-?} inputs in ${seconds} s; ${line:-}"
    else
        echo "fuzz $t: FAILED (exit $status); the end of fuzz/.build/runs/$t.log:"
        grep -aE "Fatal error|ERROR|SUMMARY|Test unit written" ".build/runs/$t.log" | head -8 | sed 's/^/    /'
    fi
    return $status
}

failed=0
running=0
for t in "${targets[@]}"; do
    [ -x "$bin/fuzz-$t" ] || { echo "fuzz/run.sh: no target $t (targets: ${all[*]})" >&2; exit 2; }
    if [ "$jobs" -gt 1 ]; then
        run "$t" & running=$((running + 1))
        if [ $running -ge "$jobs" ]; then wait -n || failed=1; running=$((running - 1)); fi
    else
        run "$t" || failed=1
    fi
done
while [ $running -gt 0 ]; do wait -n || failed=1; running=$((running - 1)); done
exit $failed
