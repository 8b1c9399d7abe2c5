#!/bin/sh
# Compiles the installed Swift SDK (sdk/install.sh's package) beforehand, into a package of its
# own that a plugin's Package.swift names as it names the sources one (docs/plugins.md, "A
# plugin in Swift"; `make install` puts it at the Makefile's SDKPREBUILTDIR):
#
#   sdk/prebuild.sh TABD SOURCES DEST    e.g. sdk/prebuild.sh .build/release/tabd /usr/local/share/tabd/swift/tabd-sdk out
#
# SOURCES is what sdk/install.sh wrote from the same TABD (its InstalledToolchain.swift included,
# so a swiftc other than tabd's stops here with its one error). DEST gets, from sdk/prebuilt/:
#   modules/   each Swift module's .swiftinterface and .swiftmodule (-enable-library-evolution),
#              and CTabPolicy's module map and tabd/policy.h;
#   lib/       libTabStrings.a, libTabJSON.a, libTabPolicy.a, libCTabPolicy.a (-O, PIC);
#   tabd-sdk.pc  the -I and -L/-l a plugin's build needs, relative to itself (${pcfiledir});
#   Package.swift, and Sources/TabdToolchain/InstalledToolchain.swift, compiled in the plugin's
#   build by the plugin's Swift, which it refuses if it is not tabd's.
# SWIFTC (default: swiftc on PATH, the Swift `swift build` uses) and CC (default: the clang
# beside it) compile. DEST is relocatable: nothing in it names where it is.
set -eu
tabd=$1
src=$2
dest=$3
root=$(cd "$(dirname "$0")" && pwd)
swiftc=${SWIFTC:-swiftc}
cc=${CC:-$(dirname "$(command -v "$swiftc")")/clang}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/modules" "$work/lib" "$work/Sources/TabdToolchain"
cp -R "$src/Sources/CTabPolicy/include/tabd" "$work/modules/"
cp "$root/prebuilt/module.modulemap" "$work/modules/"
"$cc" -c -fPIC -O2 -I "$work/modules" "$src/Sources/CTabPolicy/policy.c" -o "$work/policy.o"
ar rcs "$work/lib/libCTabPolicy.a" "$work/policy.o"
rm "$work/policy.o"
# In dependency order (sdk/Package.swift's targets: TabJSON needs TabStrings, TabPolicy both).
for m in TabStrings TabJSON TabPolicy; do
    "$swiftc" -parse-as-library -emit-library -static -module-name "$m" -swift-version 6 -O \
        -enable-library-evolution -emit-module-interface-path "$work/modules/$m.swiftinterface" \
        -emit-module-path "$work/modules/$m.swiftmodule" -I "$work/modules" \
        "$src/Sources/$m"/*.swift -o "$work/lib/lib$m.a"
done
# Only what a plugin's build reads: the public interface, the binary module, its doc comments.
rm -f "$work/modules"/*.private.swiftinterface "$work/modules"/*.abi.json "$work/modules"/*.swiftsourceinfo
cp "$src/Sources/TabPolicy/InstalledToolchain.swift" "$work/Sources/TabdToolchain/"
version=$("$tabd" --version | sed -n 1p)
swift=$("$tabd" --version | sed -n 's/.*; Swift \([0-9][0-9.+]*\) .*/\1/p')
for f in tabd-sdk.pc Package.swift; do
    sed -e "s/@VERSION@/$version/g" -e "s/@SWIFT@/$swift/g" "$root/prebuilt/$f" > "$work/$f"
done

rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
cp -R "$work" "$dest"
chmod -R u=rwX,go=rX "$dest"
