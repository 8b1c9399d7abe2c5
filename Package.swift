// swift-tools-version: 6.1
// tabd — a headless tab-container daemon. Layout and decisions: ARCHITECTURE in ../shared
// and docs/ in this repository; docs/architecture.md draws the modules below and their
// dependencies.
import PackageDescription

/// The request path (protocol, loop, dispatch, plugin host, journal) in release builds: no
/// dynamic exclusivity checks. They cost about 2,150 instructions per request, a third of a
/// select (BENCHMARKS.md, "Unsafe flags and unchecked references"); debug builds and the
/// tests keep them. Never on the Swift SDK's targets (TabPolicy, CTabPolicy, TabJSON,
/// TabStrings): SwiftPM refuses a package dependency by version whose products need unsafe
/// flags, and the SDK is installed as a package of its own (sdk/Package.swift); what the
/// flag saved in TabJSON is per-declaration `@exclusivity(unchecked)` there (BENCHMARKS.md,
/// "The Swift SDK as a package").
let hotPath: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "tabd",
    products: [
        .executable(name: "tabd", targets: ["tabd"]),
        .executable(name: "tabctl", targets: ["tabctl"]),
        .library(name: "TabCore", targets: ["TabCore"]),
        .library(name: "TabPolicy", targets: ["TabPolicy"]),
        // The client library for front ends (docs/clients.md): requests, events, the mirror.
        .library(name: "TabClient", targets: ["TabClient"]),
        // Not an API: the door fuzz/Package.swift's targets reach tabd's modules through (a
        // package can depend only on products), so the fuzzers build from this module graph.
        .library(name: "TabdInternalsForFuzzing",
                 targets: ["TabJSON", "TabCore", "TabProtocol", "TabState", "TabPlugins", "TabServer"]),
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
        // libevent through pkg-config; shim.h wraps the few of its macros Swift cannot import.
        .systemLibrary(
            name: "CLibevent",
            pkgConfig: "libevent",
            providers: [.apt(["libevent-dev"])]
        ),
        // The Linux calls Swift cannot import as they are (eventfd, accept4, fallocate,
        // SO_PEERCRED, malloc tuning, the cycle counter): static inline C, nothing to link.
        .systemLibrary(name: "CLinux"),
        // What every process of tabd's shares and nothing else of tabd's: the one system call
        // layer (`Sys`, each wrapper named after its C call, errors as `SystemError`), the
        // monotonic clock, Unix socket addresses. Only Glibc and CLinux's inline shims below it.
        .target(name: "TabSystem", dependencies: ["CLinux"]),
        // Short ASCII strings as the two words a String keeps them in: the ids and names on
        // the hot paths (SmallASCII; its layout is checked once at start: tabd refuses to
        // start on a runtime that lays strings out otherwise). No unsafe flags: it is in the
        // Swift SDK's closure (BENCHMARKS-HISTORY.md, "The Swift SDK as a package").
        .target(name: "TabStrings"),
        // The state machine: pure values, no I/O. A tab is described once there (`Tab.fields`),
        // and read and written in each of its forms with TabJSON.
        .target(name: "TabCore", dependencies: ["TabStrings", "TabJSON"]),
        // The one JSON codec: the strict parser, the value tree, the writer, Codable over them.
        // No dependencies: the server, the plugin host, the state files and the Swift SDK
        // (linked into each plugin) all use it.
        .target(name: "TabJSON", dependencies: ["TabStrings"]),
        // The plugin C ABI: include/tabd/policy.h is the one header plugin authors read.
        .target(name: "CTabPolicy"),
        // Swift SDK for plugin authors. `make install` copies it, with the three targets it
        // needs, into a package of its own (sdk/Package.swift; docs/plugins.md).
        .target(name: "TabPolicy", dependencies: ["CTabPolicy", "TabJSON", "TabStrings"]),
        // The host side of plugins: checks, dlopen, composition. What plugins hand over as
        // JSON goes through TabJSON's parser, the one client input goes through.
        .target(
            name: "TabPlugins",
            dependencies: ["TabCore", "CTabPolicy", "CPluginSandbox", "TabJSON", "TabStrings", "TabSystem", .product(name: "Logging", package: "swift-log")],
            swiftSettings: hotPath
        ),
        // What an isolated plugin's helper process applies to itself: seccomp, no new
        // privileges, its user, closed descriptors. C, for the BPF filter's macros.
        .target(name: "CPluginSandbox"),
        // Wire types: requests decoded from and replies encoded to JSON lines. No sockets.
        .target(name: "TabProtocol", dependencies: ["TabCore", "TabJSON"], swiftSettings: hotPath),
        // CRC-32 with x86-64's carry-less multiply where the CPU has it (C: Swift cannot
        // reach the instruction), tables elsewhere: every journal record is checksummed.
        .target(name: "CCRC32"),
        // The state files: the journal's own record codec, snapshots, the directory lock.
        .target(
            name: "TabState",
            dependencies: ["CCRC32", "TabCore", "TabJSON", "TabStrings", "TabSystem", .product(name: "Logging", package: "swift-log")],
            swiftSettings: hotPath
        ),
        // Line-delimited requests over a Unix socket: the libevent loop, the listener,
        // connections, turns and their group commit, the limits. Knows nothing of tabs: its
        // one client is a LineServiceDelegate (TabServer's service; an echo delegate in its tests).
        .target(
            name: "TabTransport",
            dependencies: ["CLibevent", "CLinux", "TabSystem", .product(name: "Logging", package: "swift-log")],
            swiftSettings: hotPath
        ),
        // tabd and systemd, both ways in one file: sd_notify and socket activation. A target
        // of its own so that the transport stays free of systemd and the service of sockets.
        .target(name: "TabSystemd", dependencies: ["TabSystem", "TabTransport"]),
        // The service on the transport: dispatch, durability, config, logging, the daemon.
        .target(
            name: "TabServer",
            dependencies: [
                "CLinux", "TabCore", "TabJSON", "TabProtocol", "TabPlugins", "TabState", "TabSystem", "TabSystemd", "TabTransport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: hotPath
        ),
        .executableTarget(
            name: "tabd",
            dependencies: [
                "TabServer", "TabPlugins", "TabProtocol", "TabState", "TabStrings",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Front ends' side of the socket: async requests, events, the seq mirror. The
        // Unix socket and a reading thread; no networking framework (tabd-web, in web/, puts
        // Hummingbird on top of it, in a package of its own).
        .target(name: "TabClient", dependencies: ["TabCore", "TabJSON", "TabProtocol", "TabSystem"]),
        .executableTarget(
            name: "tabctl",
            dependencies: [
                "CLinux", "TabClient", "TabJSON", "TabProtocol", "TabSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Writes tabd(8) and tabctl(1) from the parsers (`make install`); not installed.
        .executableTarget(name: "tabd-manpage", dependencies: ["TabJSON", "TabProtocol"]),
        // SwiftPM reserves Plugins/ for package plugins; these are ordinary dynamic libraries.
        .target(name: "LoginGate", dependencies: ["TabPolicy", "CCrypt", "TabSystem"], path: "Plugins/LoginGate",
                linkerSettings: [.linkedLibrary("crypt")]),
        // crypt(3) for LoginGate: module.modulemap + shim.h over <crypt.h>.
        .systemLibrary(name: "CCrypt", path: "Plugins/CCrypt"),
        .target(name: "OrientationRules", dependencies: ["TabPolicy"], path: "Plugins/OrientationRules"),

        // The test targets' one seeded generator (a library only the tests use).
        .target(name: "TestRandom", path: "Tests/TestRandom"),
        // Their one log recorder, over swift-log's in-memory handler.
        .target(name: "TestLogging", dependencies: [.product(name: "Logging", package: "swift-log"), .product(name: "InMemoryLogging", package: "swift-log")],
                path: "Tests/TestLogging"),

        .testTarget(name: "TabCoreTests", dependencies: ["TestRandom", "TabCore", "TabJSON"]),
        // The system call layer: EINTR retried, errno kept and named by its call.
        .testTarget(name: "TabSystemTests", dependencies: ["TabSystem"]),
        .testTarget(name: "TabJSONTests", dependencies: ["TestRandom", "TabJSON", "TabStrings"]),
        .testTarget(name: "TabPolicyTests", dependencies: ["CTabPolicy", "TabPolicy", "TabJSON"]),
        .testTarget(name: "TabProtocolTests", dependencies: ["TestRandom", "TabCore", "TabJSON", "TabProtocol"]),
        .testTarget(name: "TabPluginsTests", dependencies: ["CTabPolicy", "TabPlugins", "TabCore", "TabJSON", "TabProtocol", "TabSystem", "TestLogging"]),
        .testTarget(name: "TabServerTests", dependencies: ["TestRandom", "TabProtocol", "TabCore", "TabPlugins", "TabServer", "TabState", "TabSystem", "TabJSON", "TabTransport"]),
        // The transport against an echo delegate, and systemd's side of it. Swift 5 mode: the
        // tests run the loop on a thread of its own and reach its loop-bound objects from the
        // test's thread, waiting for each closure they send (`TestServer.sync`); Swift 6 would
        // want every such closure rebuilt around LoopBound values for no gain in what is tested.
        .testTarget(name: "TabTransportTests", dependencies: ["TabTransport", "TabSystemd", "TabSystem", "TestLogging"],
                    swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(name: "TabStateTests", dependencies: ["TestRandom", "TabCore", "TabJSON", "TabState", "TabProtocol", "CCRC32", "TestLogging"],
                    exclude: ["Fixtures"]),  // snapshots written by earlier versions
        .testTarget(name: "EndToEndTests", dependencies: ["TestRandom", "CTabPolicy", "TabClient", "TabCore", "TabJSON", "TabPolicy", "TabProtocol", "TabSystem"],
                    exclude: ["Fixtures"]),  // C sources the tests compile as plugin authors would
    ],
    // Swift 6: the loop-bound types (the event loop, the server and its connections, the
    // service, the store, the plugin host) are explicitly not Sendable, so the compiler checks
    // that nothing of theirs reaches another thread except through the loop's door
    // (`LoopDoor`, Sendable closures) and `LoopBound` (opened only on the loop's thread); the
    // store's helper thread gets Sendable values and answers through a Mutex.
    swiftLanguageModes: [.v6]
)
