#!/bin/sh
# Installs tabd's Swift SDK as a package of its own (`make install`; docs/plugins.md, "A
# plugin in Swift"):
#
#   sdk/install.sh TABD DEST [PATH]    e.g. sdk/install.sh .build/release/tabd /usr/local/share/tabd/swift/tabd-sdk
#
# (PATH: where DEST is once installed, for the manifest's comment; DEST without a DESTDIR.)
# DEST gets sdk/Package.swift and, for each target it names, that directory of Sources/ as it
# is (whole directories: a file added to Sources/TabPolicy is installed without a change
# here). The version and the Swift tabd was built with are read from TABD --version, the one
# place tabd states them; TabPolicy gets InstalledToolchain.swift, which stops a build with
# another Swift with one error naming the one to use.
set -eu
tabd=$1
dest=$2
path=${3:-$dest}
root=$(cd "$(dirname "$0")/.." && pwd)

version=$("$tabd" --version | sed -n 1p)
swift=$("$tabd" --version | sed -n 's/.*; Swift \([0-9][0-9.+]*\) .*/\1/p')
if [ -z "$version" ] || [ -z "$swift" ]; then
    echo "sdk/install.sh: '$tabd --version' names no version or no Swift version" >&2
    exit 1
fi
targets=$(sed -n 's/^ *\.target(name: "\([A-Za-z]*\)".*/\1/p' "$root/sdk/Package.swift")

rm -rf "$dest/Sources"
mkdir -p "$dest/Sources"
for t in $targets; do cp -R "$root/Sources/$t" "$dest/Sources/$t"; done
sed -e "s/@VERSION@/$version/g" -e "s/@SWIFT@/$swift/g" -e "s|@PATH@|$path|g" "$root/sdk/Package.swift" > "$dest/Package.swift"

# "6.3": 6.3.x only; "6.5+" (tabd's newest name, Metrics.swift): 6.5 or later.
case $swift in
    *+) condition="!compiler(>=${swift%+})" ;;
    *) condition="!compiler(>=$swift) || compiler(>=$(echo "$swift" | awk -F. '{ print $1 "." $2 + 1 }'))" ;;
esac
cat > "$dest/Sources/TabPolicy/InstalledToolchain.swift" <<SWIFT
// Written by sdk/install.sh from \`tabd --version\`: tabd $version was built with Swift $swift,
// and a Swift plugin runs on tabd's Swift runtime, so it is built with the same Swift.
#if $condition
#error("tabd $version was built with Swift $swift (tabd --version): build this plugin with a Swift $swift toolchain")
#endif
SWIFT
chmod -R u=rwX,go=rX "$dest"
