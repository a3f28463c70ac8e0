// swift-tools-version: 6.1
// The fuzz targets, apart from the product (as swift-nio keeps its benchmarks apart).
// Scripts/fuzz builds them with libFuzzer; Scripts/fuzz-smoke and the tests here run
// their regression inputs in ordinary builds (docs/reliability.md).
import PackageDescription

let package = Package(
    name: "ctxdebug-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "ctxdebug", path: "..")],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "ConcurrencyDebug", package: "ctxdebug"),
                .product(name: "ManagedContext", package: "ctxdebug"),
                .product(name: "SurfJournal", package: "ctxdebug"),
                .product(name: "CoreData", package: "ctxdebug"),
                .product(name: "Replay", package: "ctxdebug"),
                .product(name: "TestSupport", package: "ctxdebug"),
            ]),
        .executableTarget(name: "FuzzJournalReader", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzWorkload", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzObjectID", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzPredicate", dependencies: ["FuzzSupport"]),
        // Runs the built executables above on the regression inputs.
        .testTarget(name: "FuzzTests", dependencies: [.product(name: "TestSupport", package: "ctxdebug")]),
    ]
)

for target in package.targets {
    target.swiftSettings = [
        .swiftLanguageMode(.v6),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ]
}
