// swift-tools-version: 6.2
// 6.2: a package that depends on this one by version accepts the one unsafe flag below
// (SwiftPM checks unsafe flags only in manifests older than 6.2).
import PackageDescription

let package = Package(
    name: "ctxdebug",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ConcurrencyDebug", targets: ["ConcurrencyDebug"]),
        .library(name: "ManagedContext", targets: ["ManagedContext"]),
        .library(name: "CoreData", targets: ["CoreData"]),
        .library(name: "SurfJournal", targets: ["SurfJournal"]),
        .library(name: "Replay", targets: ["Replay"]),
        .library(name: "Reports", targets: ["Reports"]),
        .library(name: "ReportFormats", targets: ["ReportFormats"]),
        .library(name: "ReplayModel", targets: ["ReplayModel"]),
        .library(name: "ExploreModel", targets: ["ExploreModel"]),
        .library(name: "ConcurrencyDebugTesting", targets: ["ConcurrencyDebugTesting"]),
        .library(name: "CoreDataLint", targets: ["CoreDataLint"]),
        .library(name: "CoreDataPorter", targets: ["CoreDataPorter"]),
        // Runs `ctxdebug port` inside `swift build` (docs/coredata-port.md).
        .plugin(name: "CoreDataPort", targets: ["CoreDataPort"]),
        // For this repository's sibling packages (Fuzz/, Benchmarks/); not API.
        .library(name: "TestSupport", targets: ["TestSupport"]),
        .executable(name: "ctxdebug", targets: ["ctxdebug"]),
        // The preload library `ctxdebug explore` puts in LD_PRELOAD of COMMAND's processes
        // (docs/explore.md, "What is controlled"); found next to the ctxdebug binary.
        .library(name: "CtxdebugDispatchControl", type: .dynamic, targets: ["CtxdebugDispatchControl"]),
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
        // The bottom: what every layer may import (as NIOConcurrencyHelpers is for swift-nio).
        .target(name: "CCtxdebugHelpers"),
        // libdispatch's entry points as scheduling points, in the processes `ctxdebug explore`
        // runs (or that run the in-process explore); linked by nothing (loaded with LD_PRELOAD),
        // inert unless ScheduleControl installs its hooks. Its hook tables are CScheduleControl's
        // header: it has none of its own to publish.
        .target(name: "CtxdebugDispatchControl", dependencies: ["CScheduleControl"], publicHeadersPath: ".", linkerSettings: [.linkedLibrary("dl")]),
        // ScheduleControl's C: the preload library's hook and service tables, one header both sides read.
        .target(name: "CScheduleControl"),
        .target(name: "CtxdebugHelpers", dependencies: ["CCtxdebugHelpers"]),
        .target(name: "CConcurrencyDebug", dependencies: ["CLibunwind"]),
        // Foundation-only values and formats: what reports read and write, without the runtime.
        .target(name: "ViolationModel"),
        .target(name: "ReportFormats"),
        .target(name: "ReplayModel"),
        // Schedule exploration's strategies, schedule file, step log, minimizer and result model.
        .target(name: "ExploreModel", dependencies: ["CtxdebugHelpers"]),
        .target(name: "ConcurrencyDebug", dependencies: ["CConcurrencyDebug", "CtxdebugHelpers", "ViolationModel"]),
        // The controlled scheduler `explore` drives (docs/explore.md), off by default: logical
        // queues keyed by queue, the dispatch control's hooks, the parent channel, the
        // uncontrolled waits. Below ManagedContext, which reaches it through one door (ScheduleDoor).
        .target(name: "ScheduleControl", dependencies: ["ConcurrencyDebug", "CScheduleControl", "CtxdebugHelpers", "ExploreModel"]),
        .target(
            name: "ManagedContext",
            dependencies: ["ConcurrencyDebug", "CtxdebugHelpers", "ScheduleControl", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift")]
        ),
        // Core Data's API with its NS names over ManagedContext (Linux); nothing below imports it.
        .target(name: "CoreData", dependencies: ["ManagedContext", "ConcurrencyDebug", "CtxdebugHelpers"]),
        // The in-process explore drives ScheduleControl: it links no runtime of its own (a
        // context made in an explored body registers with the run through ManagedContext).
        .target(name: "ConcurrencyDebugTesting", dependencies: ["ConcurrencyDebug", "CtxdebugHelpers", "ScheduleControl", "ExploreModel", "Reports"]),
        // The sample app's data layer, written with `import CoreData` as the chapter writes it;
        // its fast export (CSVExport) reads the runtime's dictionary fetches directly.
        .target(
            name: "SurfJournal", dependencies: ["CoreData", "ManagedContext", "CtxdebugHelpers"],
            resources: [.copy("SurfJournalModel.xcdatamodeld")]
        ),
        .target(
            name: "Replay",
            dependencies: [
                "SurfJournal", "CoreData", "ManagedContext", "ConcurrencyDebug", "ReplayModel", "CtxdebugHelpers",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        // Links no runtime: ReportsTests reads the package graph and fails if it does.
        .target(name: "Reports", dependencies: ["ReportFormats", "ViolationModel", "ReplayModel", "ExploreModel"]),
        .target(
            name: "CoreDataLint",
            dependencies: [
                "ReportFormats", "CtxdebugHelpers",
                .product(name: "SwiftSyntax", package: "swift-syntax"), .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        // The rewriter behind `ctxdebug port` and the CoreDataPort plugin (swift-syntax; no runtime).
        .target(
            name: "CoreDataPorter",
            dependencies: [.product(name: "SwiftSyntax", package: "swift-syntax"), .product(name: "SwiftParser", package: "swift-syntax")]
        ),
        // The plugin's tool: the port alone, so a user's build does not compile the runtime twice.
        .executableTarget(name: "ctxdebug-port", dependencies: ["CoreDataPorter"]),
        .plugin(name: "CoreDataPort", capability: .buildTool(), dependencies: ["ctxdebug-port"]),
        .executableTarget(
            name: "ctxdebug",
            dependencies: [
                "ManagedContext", "ConcurrencyDebug", "CoreData", "SurfJournal", "Replay", "Reports", "ReportFormats", "CoreDataLint", "CoreDataPorter", "CtxdebugHelpers",
                "ExploreModel", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Test-only: saves in a loop for the crash-safety test (SaveCrashTests); built by
        // `swift build --build-tests` beside the test bundle, not part of `ctxdebug`.
        .executableTarget(
            name: "ctxdebug-stress-writer",
            dependencies: ["ManagedContext", "CoreData", "SurfJournal", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tests/StressWriter"
        ),
        // Test-only: the other process of the cross-process persistent history tests
        // (Tests/CoreDataTests/RemoteChangeTests.swift).
        .executableTarget(name: "ctxdebug-history-writer", dependencies: ["CoreData"], path: "Tests/HistoryWriter"),
        // Test-only: the corpus of ordering-dependent Core Data bugs with fixed twins (issue 26,
        // Tests/ExploreCorpus/README.md), and its runner (`list`, `run`, `measure`).
        .target(name: "ExploreCorpus", dependencies: ["ManagedContext", "CtxdebugHelpers"], path: "Tests/ExploreCorpus", exclude: ["README.md"]),
        .executableTarget(
            name: "ctxdebug-explore-corpus",
            dependencies: ["ExploreCorpus", "CtxdebugHelpers", "ConcurrencyDebugTesting", "ExploreModel", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tests/ExploreCorpusRunner"
        ),
        // Test-only: the app-style corpus (issue 37, Tests/ExploreAppCorpus/README.md): ordering
        // bugs written as apps write them, explored unchanged through the preload library.
        .executableTarget(name: "ctxdebug-explore-app-corpus", dependencies: ["ManagedContext"], path: "Tests/ExploreAppCorpus", exclude: ["README.md"]),
        // Test-only: an XCTest run whose methods wait on expectations while the UI is told on the
        // main queue, explored unchanged (issue 37, ExploreAppCorpusTests).
        .executableTarget(name: "ctxdebug-explore-xctest-sample", dependencies: ["ManagedContext"], path: "Tests/ExploreXCTestSample"),
        // Test-only: one wrong-queue access, run by CheckingSwitchTests under each documented
        // way to turn checking on.
        .executableTarget(name: "ctxdebug-wrong-queue-sample", dependencies: ["ManagedContext"], path: "Tests/WrongQueueSample"),
        // Test-only: speaks the child side of `ctxdebug explore`'s protocol (ExploreModel's
        // ExploreMessage) over a scripted two-actor program (ExploreCommandTests); not part of `ctxdebug`.
        .executableTarget(name: "ctxdebug-explore-fake-child", dependencies: ["ExploreModel"], path: "Tests/ExploreFakeChild"),
        // Test-only: plain dispatch and a QueueConfined value, no context, explored by the
        // in-process explore { } with the preload library loaded (ExploreDispatchSampleTests).
        .executableTarget(name: "ctxdebug-explore-dispatch-sample", dependencies: ["ConcurrencyDebugTesting", "ConcurrencyDebug"], path: "Tests/ExploreDispatchSample"),
        // Test-only: a real ManagedContext stack with a lost update, explored across
        // processes through the runtime's child side (ExploreCommandTests).
        .executableTarget(name: "ctxdebug-explore-sample", dependencies: ["ManagedContext", "ConcurrencyDebugTesting"], path: "Tests/ExploreSample"),
        // Shared by the tests and the sibling packages (Fuzz/, Benchmarks/).
        .target(name: "TestSupport", dependencies: ["CtxdebugHelpers"], path: "Tests/TestSupport"),
        .testTarget(name: "CtxdebugHelpersTests", dependencies: ["CtxdebugHelpers", "TestSupport"]),
        .testTarget(name: "ConcurrencyDebugTests", dependencies: ["ConcurrencyDebug", "CConcurrencyDebug", "TestSupport"]),
        .testTarget(name: "ConcurrencyDebugTestingTests", dependencies: ["ConcurrencyDebugTesting", "ConcurrencyDebug", "ManagedContext", "ExploreModel", "TestSupport"]),
        .testTarget(name: "ScheduleControlTests", dependencies: ["ScheduleControl", "ConcurrencyDebug", "CtxdebugHelpers", "ExploreModel"]),
        .testTarget(name: "ManagedContextTests", dependencies: ["ManagedContext", "ScheduleControl", "ctxdebug-wrong-queue-sample", "ConcurrencyDebug", "CtxdebugHelpers", "ExploreModel", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift")]),
        .testTarget(name: "CoreDataTests", dependencies: ["CoreData", "ManagedContext", "ConcurrencyDebug", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift")], exclude: ["Fixtures"]),
        .testTarget(name: "SurfJournalTests", dependencies: ["SurfJournal", "CoreData", "ManagedContext", "TestSupport"]),
        .testTarget(name: "ReplayTests", dependencies: ["Replay", "SurfJournal", "CoreData", "ManagedContext", "ConcurrencyDebug"]),
        .testTarget(name: "CoreDataLintTests", dependencies: ["CoreDataLint", .product(name: "SwiftParser", package: "swift-syntax")]),
        .testTarget(
            name: "CoreDataPorterTests",
            dependencies: ["CoreDataPorter", .product(name: "SwiftParser", package: "swift-syntax")],
            exclude: ["Fixtures"]),
        .testTarget(name: "ExploreModelTests", dependencies: ["ExploreModel", "CtxdebugHelpers", "TestSupport"]),
        .testTarget(name: "ExploreCorpusTests", dependencies: ["ExploreCorpus", "ctxdebug-explore-corpus", "ConcurrencyDebugTesting", "ExploreModel", "TestSupport"]),
        .testTarget(name: "ReportsTests", dependencies: ["Reports", "ReportFormats", "ViolationModel", "ReplayModel", "ExploreModel", "TestSupport"]),
        .testTarget(
            name: "ctxdebugTests",
            dependencies: ["ctxdebug", "ctxdebug-stress-writer", "ctxdebug-explore-fake-child", "ctxdebug-explore-sample", "ctxdebug-explore-app-corpus", "ctxdebug-explore-xctest-sample", "ctxdebug-explore-dispatch-sample", "ConcurrencyDebug", "ManagedContext", "CoreDataLint", "Reports", "Replay", "ExploreModel", "TestSupport"]
        ),
    ]
)

// One place for the settings every Swift target shares.
let cTargets: Set = ["CConcurrencyDebug", "CCtxdebugHelpers", "CScheduleControl", "CtxdebugDispatchControl"]
for target in package.targets where target.type != .system && target.type != .plugin && !cTargets.contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .swiftLanguageMode(.v6),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ]
}

// The modules an explored process runs in its dispatch hooks (docs/explore.md, "What is
// controlled") reach generic type metadata through its accessor, not by demangling the
// type's name: Swift's default looks a type up by mangled name at its first use in each
// module, microseconds each, which every explored process paid in its first hooks. Only
// these get the unsafe flag (ManagedContext runs in no hook since ScheduleControl is a
// module of its own).
let hookModules: Set = ["ScheduleControl", "ExploreModel", "CtxdebugHelpers"]
for target in package.targets where hookModules.contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"]),
    ]
}
