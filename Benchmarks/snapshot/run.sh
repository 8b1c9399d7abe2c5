#!/usr/bin/env bash
# Builds the snapshot codec benchmark standalone (release, no SwiftPM) and runs it: TabCore
# and TabJSON compiled as one module with Benchmarks/snapshot/main.swift.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${TMPDIR:-/tmp}/tabd-snapshotbench
swiftc -O -module-name SnapshotBench Sources/TabCore/*.swift Sources/TabJSON/*.swift Benchmarks/snapshot/main.swift -o "$out"
"$out"
