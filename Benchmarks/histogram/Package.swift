// swift-tools-version: 6.1
// What recording one latency costs: tabd's LatencyHistogram (Sources/TabServer, linked
// here) against HdrHistogram/hdrhistogram-swift, counted by callgrind. A package of its own
// so that tabd never depends on the HdrHistogram package. Run: ./run.sh (BENCHMARKS.md).
import PackageDescription

let package = Package(
    name: "tabd-histogram-cost",
    dependencies: [
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", exact: "0.2.0"),
    ],
    targets: [
        .executableTarget(
            name: "HistogramCost",
            dependencies: [.product(name: "Histogram", package: "hdrhistogram-swift")],
            // As tabd's request path is built (Package.swift, hotPath).
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"])]
        ),
    ]
)
