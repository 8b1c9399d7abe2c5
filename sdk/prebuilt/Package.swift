// swift-tools-version: 6.1
// tabd @VERSION@'s Swift SDK for policy plugins, prebuilt: `make install` writes this package
// (sdk/prebuild.sh) beside the sources one, for a plugin's Package.swift to name the same way,
// with no flags of its own (docs/plugins.md, "A plugin in Swift"):
//
//     .package(name: "tabd", path: "<prefix>/share/tabd/swift/tabd-sdk-prebuilt")
//     .product(name: "TabPolicy", package: "tabd")
//
// modules/ has TabStrings, TabJSON and TabPolicy compiled with Swift @SWIFT@ (.swiftmodule, and
// .swiftinterface: -enable-library-evolution) and CTabPolicy's module map; lib/ their static
// libraries. The CTabPolicy target hands a dependent's build the -I and -L/-l of tabd-sdk.pc
// (SwiftPM reads a pkgConfig given as a path); TabdToolchain is compiled by the plugin's
// Swift, which InstalledToolchain.swift refuses if it is not @SWIFT@.
import PackageDescription

let package = Package(
    name: "tabd",
    products: [
        // The SDK: `import TabPolicy`.
        .library(name: "TabPolicy", targets: ["TabdToolchain"]),
        // tabd/policy.h as a Clang module (`import CTabPolicy`), for the C ABI itself.
        .library(name: "CTabPolicy", targets: ["TabdToolchain"]),
    ],
    targets: [
        .systemLibrary(name: "CTabPolicy", path: "modules", pkgConfig: Context.packageDirectory + "/tabd-sdk.pc"),
        .target(name: "TabdToolchain", dependencies: ["CTabPolicy"]),
    ],
    swiftLanguageModes: [.v6]
)
