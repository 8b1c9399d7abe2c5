// swift-tools-version: 6.1
// tabd @VERSION@'s Swift SDK for policy plugins, as `make install` installs it (sdk/install.sh
// writes this file to <prefix>/share/tabd/swift/tabd-sdk with the sources of the targets below, copied
// from tabd's Sources/): a package of its own, for a plugin's Package.swift to depend on by
// its path, @PATH@ (docs/plugins.md, "A plugin in Swift"):
//
//     .package(name: "tabd", path: "@PATH@")
//     .product(name: "TabPolicy", package: "tabd")
//
// Build plugins with Swift @SWIFT@, the Swift this tabd was built with (`tabd --version`): a
// Swift plugin runs on tabd's Swift runtime (TabPolicy's InstalledToolchain.swift refuses
// another compiler). The targets are tabd's own, with no unsafe flags (tabd's Package.swift
// keeps them off this closure, so a package may depend on tabd's repository by version too).
import PackageDescription

let package = Package(
    name: "tabd",
    products: [
        // The SDK: `import TabPolicy`.
        .library(name: "TabPolicy", targets: ["TabPolicy"]),
        // tabd/policy.h as a Clang module (`import CTabPolicy`), for the C ABI itself.
        .library(name: "CTabPolicy", targets: ["CTabPolicy"]),
    ],
    targets: [
        .target(name: "CTabPolicy"),
        .target(name: "TabStrings"),
        .target(name: "TabJSON", dependencies: ["TabStrings"]),
        .target(name: "TabPolicy", dependencies: ["CTabPolicy", "TabJSON", "TabStrings"]),
    ],
    swiftLanguageModes: [.v6]
)
