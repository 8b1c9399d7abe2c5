// swift-tools-version: 6.1
// tabd — a headless tab-container daemon. Layout and decisions: ARCHITECTURE in ../shared
// and docs/ in this repository.
import PackageDescription

/// The request path (codec, loop, dispatch) in release builds: no dynamic exclusivity
/// checks. They cost about 3% of a request (swift_beginAccess on every class property
/// access, measured with perf under `make bench`); debug builds and the tests keep them.
let hotPath: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "tabd",
    products: [
        .executable(name: "tabd", targets: ["tabd"]),
        .executable(name: "tabctl", targets: ["tabctl"]),
        .library(name: "TabCore", targets: ["TabCore"]),
        .library(name: "TabPolicy", targets: ["TabPolicy"]),
        // Reference policy plugins: ordinary shared objects that tabd dlopens.
        .library(name: "LoginGate", type: .dynamic, targets: ["LoginGate"]),
        .library(name: "OrientationRules", type: .dynamic, targets: ["OrientationRules"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
    ],
    targets: [
        // libevent through pkg-config; shim.h wraps what Swift cannot import.
        .systemLibrary(
            name: "CLibevent",
            pkgConfig: "libevent",
            providers: [.apt(["libevent-dev"])]
        ),
        // The state machine: pure values, no I/O.
        .target(name: "TabCore"),
        // The one JSON codec: the strict parser, the value tree, the writer, Codable over them.
        // No dependencies: the server, the plugin host, the state files and the Swift SDK
        // (linked into each plugin) all use it.
        .target(name: "TabJSON", swiftSettings: hotPath),
        // The plugin C ABI: include/tabd/policy.h is the one header plugin authors read.
        .target(name: "CTabPolicy"),
        // Swift SDK for plugin authors.
        .target(name: "TabPolicy", dependencies: ["CTabPolicy", "TabJSON"]),
        // The host side of plugins: checks, dlopen, composition. What plugins hand over as
        // JSON goes through TabJSON's parser, the one client input goes through.
        .target(
            name: "TabPlugins",
            dependencies: ["TabCore", "CTabPolicy", "CPluginSandbox", "TabJSON", "TabProtocol", .product(name: "Logging", package: "swift-log")]
        ),
        // What an isolated plugin's helper process applies to itself: seccomp, no new
        // privileges, its user, closed descriptors. C, for the BPF filter's macros.
        .target(name: "CPluginSandbox"),
        // Wire types: requests decoded from and replies encoded to JSON lines. No sockets.
        .target(name: "TabProtocol", dependencies: ["TabCore", "TabJSON"], swiftSettings: hotPath),
        // The state files: the journal's own record codec, snapshots, the directory lock.
        .target(
            name: "TabState",
            dependencies: ["CLibevent", "TabCore", "TabJSON", "TabProtocol", .product(name: "Logging", package: "swift-log")],
            swiftSettings: hotPath
        ),
        // The libevent loop, connections, dispatch, config.
        .target(
            name: "TabServer",
            dependencies: [
                "CLibevent", "TabCore", "TabProtocol", "TabPlugins", "TabState",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: hotPath
        ),
        .executableTarget(
            name: "tabd",
            dependencies: [
                "TabServer", "TabPlugins",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "tabctl",
            dependencies: [
                "TabJSON", "TabProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Writes tabd(8) and tabctl(1) from the parsers (`make install`); not installed.
        .executableTarget(name: "tabd-manpage", dependencies: ["TabProtocol"]),
        // SwiftPM reserves Plugins/ for package plugins; these are ordinary dynamic libraries.
        .target(name: "LoginGate", dependencies: ["TabPolicy", "CCrypt"], path: "Plugins/LoginGate",
                linkerSettings: [.linkedLibrary("crypt")]),
        // crypt(3) for LoginGate: module.modulemap + shim.h over <crypt.h>.
        .systemLibrary(name: "CCrypt", path: "Plugins/CCrypt"),
        .target(name: "OrientationRules", dependencies: ["TabPolicy"], path: "Plugins/OrientationRules"),

        .testTarget(name: "TabCoreTests", dependencies: ["TabCore"]),
        .testTarget(name: "TabJSONTests", dependencies: ["TabJSON"]),
        .testTarget(name: "TabPolicyTests", dependencies: ["TabPolicy", "TabJSON"]),
        .testTarget(name: "TabProtocolTests", dependencies: ["TabProtocol"]),
        .testTarget(name: "TabPluginsTests", dependencies: ["TabPlugins", "TabCore"]),
        .testTarget(name: "TabServerTests", dependencies: ["TabServer"]),
        .testTarget(name: "TabStateTests", dependencies: ["TabState", "TabProtocol"],
                    exclude: ["Fixtures"]),  // snapshots written by earlier versions
        .testTarget(name: "EndToEndTests", dependencies: ["TabProtocol"],
                    exclude: ["Fixtures"]),  // C sources the tests compile as plugin authors would
    ],
    // One libevent thread and C callbacks everywhere: the Swift 5 mode keeps the
    // concurrency checker from fighting the single-threaded design.
    swiftLanguageModes: [.v5]
)
