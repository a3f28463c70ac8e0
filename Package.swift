// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "ctxdebug",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ConcurrencyDebug", targets: ["ConcurrencyDebug"]),
        .library(name: "ManagedContext", targets: ["ManagedContext"]),
        .library(name: "SurfJournal", targets: ["SurfJournal"]),
        .library(name: "Replay", targets: ["Replay"]),
        .library(name: "Reports", targets: ["Reports"]),
        .library(name: "ConcurrencyDebugTesting", targets: ["ConcurrencyDebugTesting"]),
        .library(name: "CoreDataLint", targets: ["CoreDataLint"]),
        // For this repository's sibling packages (Fuzz/, Benchmarks/); not API.
        .library(name: "TestSupport", targets: ["TestSupport"]),
        .executable(name: "ctxdebug", targets: ["ctxdebug"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "602.0.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibunwind",
            pkgConfig: "libunwind",
            providers: [.apt(["libunwind-dev"])]
        ),
        .target(name: "CConcurrencyDebug", dependencies: ["CLibunwind"]),
        .target(name: "ConcurrencyDebug", dependencies: ["CConcurrencyDebug"]),
        .target(
            name: "ManagedContext",
            dependencies: ["ConcurrencyDebug", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .target(name: "ConcurrencyDebugTesting", dependencies: ["ConcurrencyDebug"]),
        .target(name: "SurfJournal", dependencies: ["ManagedContext"]),
        .target(
            name: "Replay",
            dependencies: ["SurfJournal", "ManagedContext", "ConcurrencyDebug", .product(name: "Histogram", package: "hdrhistogram-swift")]
        ),
        .target(name: "Reports", dependencies: ["Replay", "ConcurrencyDebug"]),
        .target(
            name: "CoreDataLint",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"), .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        .executableTarget(
            name: "ctxdebug",
            dependencies: [
                "ManagedContext", "ConcurrencyDebug", "SurfJournal", "Replay", "Reports", "CoreDataLint",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Shared by the tests and the sibling packages (Fuzz/, Benchmarks/).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "ConcurrencyDebugTests", dependencies: ["ConcurrencyDebug", "TestSupport"]),
        .testTarget(name: "ConcurrencyDebugTestingTests", dependencies: ["ConcurrencyDebugTesting", "ConcurrencyDebug"]),
        .testTarget(name: "ManagedContextTests", dependencies: ["ManagedContext", "ConcurrencyDebug", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "SurfJournalTests", dependencies: ["SurfJournal", "ManagedContext"]),
        .testTarget(name: "ReplayTests", dependencies: ["Replay", "SurfJournal", "ManagedContext", "ConcurrencyDebug"]),
        .testTarget(name: "CoreDataLintTests", dependencies: ["CoreDataLint"]),
        .testTarget(name: "ctxdebugTests", dependencies: ["ctxdebug", "ConcurrencyDebug", "Reports", "Replay", "TestSupport"]),
    ]
)

// One place for the settings every Swift target shares.
for target in package.targets where target.type != .system && target.name != "CConcurrencyDebug" {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .swiftLanguageMode(.v6),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ]
}
