#!/usr/bin/env bash
# Builds the JSON codec benchmark standalone (release, no SwiftPM) and runs it: TabJSON and
# TabCore (for the snapshot's state) compiled as one module with Benchmarks/json/main.swift,
# whole-module and with the checks SwiftPM's -c release keeps in both (no unsafe flags: TabJSON
# is part of the Swift SDK, Package.swift); TabStrings, which both import, as a module of its
# own first.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${TMPDIR:-/tmp}/tabd-jsonbench
mods=$out.modules
mkdir -p "$mods"
swiftc -O -wmo -parse-as-library -module-name TabStrings Sources/TabStrings/*.swift \
    -emit-module -emit-module-path "$mods/TabStrings.swiftmodule" -c -o "$mods/TabStrings.o"
swiftc -O -wmo -module-name JSONBench -I "$mods" Sources/TabJSON/*.swift $(find Sources/TabCore -name '*.swift') \
    Benchmarks/json/main.swift "$mods/TabStrings.o" -o "$out"
"$out"
