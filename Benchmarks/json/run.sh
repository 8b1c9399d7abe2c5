#!/usr/bin/env bash
# Builds the JSON codec benchmark standalone (release, no SwiftPM) and runs it.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${TMPDIR:-/tmp}/tabd-jsonbench
swiftc -O Sources/TabJSON/*.swift Benchmarks/json/main.swift -o "$out"
"$out"
