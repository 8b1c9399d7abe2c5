// swift-tools-version: 6.1
// tabd's fuzz targets: one executable per target, each a libFuzzer harness over the modules of
// the package above. SwiftPM takes the module graph (and every import a module gains) from
// ../Package.swift, so nothing here lists another module's sources. Build and run: `make fuzz`
// (fuzz/run.sh), which compiles every module with -sanitize=fuzzer,address.
import PackageDescription

let tabd: Target.Dependency = .product(name: "TabdInternalsForFuzzing", package: "tabd")

/// A target in fuzz/<name>/: fuzz.swift (the test of one input), main.swift (hands it to
/// libFuzzer), the seed corpus and a dictionary beside them.
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency] = []) -> Target {
    .executableTarget(name: "fuzz-\(name)", dependencies: ["FuzzDriver", tabd] + dependencies,
                      path: name, exclude: ["corpus", "crashes", "\(name).dict"], sources: ["fuzz.swift", "main.swift"],
                      swiftSettings: [.swiftLanguageMode(.v5)])
}

let package = Package(
    name: "tabd-fuzz",
    dependencies: [
        .package(name: "tabd", path: ".."),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(name: "CFuzzDriver", path: "driver", exclude: ["Fuzz.swift"], sources: ["driver.c"]),
        .target(name: "FuzzDriver", dependencies: ["CFuzzDriver"], path: "driver", exclude: ["include", "driver.c"], sources: ["Fuzz.swift"]),
        fuzzTarget("json"),
        fuzzTarget("request"),
        fuzzTarget("helper-wire"),
        fuzzTarget("config"),
        fuzzTarget("json-helpers", [.product(name: "Logging", package: "swift-log")]),
        fuzzTarget("journal", [.product(name: "Logging", package: "swift-log")]),
    ]
)
