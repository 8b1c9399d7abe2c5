// swift-tools-version: 6.1
// Benchmarks of TabCore (issue 2): select, tap, set_tabs and state encoding at 6, 50 and
// 1,000 tabs. A package of its own so the main build never needs the benchmark tooling.
// Run: swift package --allow-writing-to-package-directory benchmark   (from this folder)
import PackageDescription

let package = Package(
    name: "tabd-core-benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        // Named, so the product is found whatever the checkout folder is called.
        .package(name: "tabd", path: "../.."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "TabCoreBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "TabCore", package: "tabd"),
            ],
            path: "Benchmarks/TabCoreBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
