#!/usr/bin/env bash
# Builds the JSON codec benchmark standalone (release, no SwiftPM) and runs it: TabJSON and
# TabCore (for the snapshot's state) compiled as one module with Benchmarks/json/main.swift,
# whole-module and with TabJSON's release flag (no dynamic exclusivity checks), as SwiftPM
# builds it with -c release.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${TMPDIR:-/tmp}/tabd-jsonbench
swiftc -O -wmo -enforce-exclusivity=unchecked -module-name JSONBench Sources/TabJSON/*.swift Sources/TabCore/*.swift \
    Benchmarks/json/main.swift -o "$out"
"$out"
