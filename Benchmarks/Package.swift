// swift-tools-version: 6.1
// The benchmarks, apart from the product (as swift-nio keeps Benchmarks/ apart). Built
// into the root package's scratch path (`swift build --disable-build-manifest-caching --package-path Benchmarks
// --scratch-path .build`), so `ctxdebug-bench` sits next to `ctxdebug`, which runs it
// as `ctxdebug bench`. Scripts/bench runs it at full size (docs/benchmarks.md).
import PackageDescription

let package = Package(
    name: "ctxdebug-benchmarks",
    platforms: [.macOS(.v15)],
    products: [.executable(name: "ctxdebug-bench", targets: ["Benchmarks"])],
    dependencies: [
        .package(name: "ctxdebug", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .executableTarget(
            name: "Benchmarks",
            dependencies: [
                .product(name: "ConcurrencyDebug", package: "ctxdebug"),
                .product(name: "ManagedContext", package: "ctxdebug"),
                .product(name: "CoreData", package: "ctxdebug"),
                .product(name: "ConcurrencyDebugTesting", package: "ctxdebug"),
                .product(name: "SurfJournal", package: "ctxdebug"),
                .product(name: "CoreData", package: "ctxdebug"),
                .product(name: "Replay", package: "ctxdebug"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // Runs `ctxdebug bench --quick` through the built ctxdebug binary.
        .testTarget(name: "BenchmarksTests", dependencies: [.product(name: "TestSupport", package: "ctxdebug")]),
    ]
)

for target in package.targets {
    target.swiftSettings = [
        .swiftLanguageMode(.v6),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ]
}
