// swift-tools-version: 6.1
// A small package for the end-to-end test of `ctxdebug check` (Tests/ctxdebugTests/
// CheckCommandTests.swift): one test with a seeded concurrency violation, one clean.
// It depends on this repository's ConcurrencyDebug by path, so it builds offline.
// It is not a target of the main package; SwiftPM ignores it there.
import PackageDescription

let package = Package(
    name: "CheckSample",
    dependencies: [
        .package(name: "ctxdebug", path: "../../.."),
    ],
    targets: [
        .target(name: "CheckSample", dependencies: [.product(name: "ConcurrencyDebug", package: "ctxdebug")]),
        .testTarget(
            name: "CheckSampleTests",
            dependencies: ["CheckSample", .product(name: "ConcurrencyDebug", package: "ctxdebug")]
        ),
    ]
)
