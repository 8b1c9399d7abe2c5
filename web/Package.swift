// swift-tools-version: 6.1
// tabd-web: a live console for tabd in the browser (docs/operations.md, "The web console").
// A package of its own so that tabd's package never resolves or builds NIO: it names tabd's
// package (..) for the TabClient product, and Hummingbird with its WebSocket package.
import Foundation
import PackageDescription

/// tabd's package (the directory above), by the identity SwiftPM gives a path dependency:
/// its directory's name, whatever the checkout is called.
let tabd = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "tabd-web",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", exact: "2.8.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
    ],
    targets: [
        .executableTarget(
            name: "tabd-web",
            dependencies: [
                .product(name: "TabClient", package: tabd),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            resources: [.copy("Resources")]
        ),
    ]
)
