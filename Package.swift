// swift-tools-version: 6.2
// 6.2: a package that depends on this one by version accepts the one unsafe flag below
// (SwiftPM checks unsafe flags only in manifests older than 6.2).
import PackageDescription

let package = Package(
    name: "ctxdebug",
    platforms: [.macOS(.v15)],
    // What users import, and nothing else (docs/architecture.md, "Products"): every other
    // module is a target, reached by this package's own targets only (the benchmarks and
    // the fuzz targets among them). Each library product lists the modules it re-exports
    // or shows in its API, so that Scripts/api-breaking guards them too.
    products: [
        // ViolationModel: re-exported (`import ConcurrencyDebug` gives `Violation`).
        .library(name: "ConcurrencyDebug", targets: ["ConcurrencyDebug", "ViolationModel"]),
        .library(name: "ManagedContext", targets: ["ManagedContext"]),
        .library(name: "CoreData", targets: ["CoreData"]),
        // ExploreModel: the in-process explore's strategies, options and results are its types.
        .library(name: "ConcurrencyDebugTesting", targets: ["ConcurrencyDebugTesting", "ExploreModel"]),
        .executable(name: "ctxdebug", targets: ["ctxdebug"]),
        // Runs `ctxdebug port` inside `swift build` (docs/coredata-port.md).
        .plugin(name: "CoreDataPort", targets: ["CoreDataPort"]),
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
        // `swift package generate-documentation` for the four libraries' DocC catalogs (Scripts/docs).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
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
        .target(name: "ReportFormats", dependencies: ["ViolationModel"]),
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
        // The one reader of Xcode models (.xcdatamodeld as Xcode saves it): CoreData builds its
        // NSManagedObjectModel from it, the port its entity classes (Foundation only: no runtime).
        .target(name: "XcodeModel"),
        // Core Data's API with its NS names over ManagedContext (Linux); nothing below imports it.
        .target(name: "CoreData", dependencies: ["ManagedContext", "ConcurrencyDebug", "CtxdebugHelpers", "XcodeModel"]),
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
            dependencies: ["XcodeModel", "CtxdebugHelpers", .product(name: "SwiftSyntax", package: "swift-syntax"), .product(name: "SwiftParser", package: "swift-syntax")]
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
        // Shared by the tests, the benchmarks and the fuzz targets.
        .target(name: "TestSupport", dependencies: ["CtxdebugHelpers"], path: "Tests/TestSupport"),
        // The benchmarks (docs/benchmarks.md): `ctxdebug bench` runs `ctxdebug-bench`, built next
        // to it. Targets of this package, not a package of their own, because they need
        // SurfJournal and Replay, which are no products (docs/architecture.md, "Benchmarks and fuzz targets").
        .executableTarget(
            name: "ctxdebug-bench",
            dependencies: [
                "ConcurrencyDebug", "ManagedContext", "CoreData", "ConcurrencyDebugTesting", "SurfJournal", "Replay",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/Sources/Benchmarks"
        ),
        // The fuzz targets (docs/reliability.md): libFuzzer under Scripts/fuzz, an ordinary
        // main over the regression inputs otherwise (Scripts/fuzz-smoke, FuzzTests).
        .target(
            name: "FuzzSupport", dependencies: ["ConcurrencyDebug", "ManagedContext", "SurfJournal", "CoreData", "Replay", "TestSupport"],
            path: "Fuzz/Sources/FuzzSupport"
        ),
        .executableTarget(name: "FuzzJournalReader", dependencies: ["FuzzSupport"], path: "Fuzz/Sources/FuzzJournalReader"),
        .executableTarget(name: "FuzzWorkload", dependencies: ["FuzzSupport"], path: "Fuzz/Sources/FuzzWorkload"),
        .executableTarget(name: "FuzzObjectID", dependencies: ["FuzzSupport"], path: "Fuzz/Sources/FuzzObjectID"),
        .executableTarget(name: "FuzzPredicate", dependencies: ["FuzzSupport"], path: "Fuzz/Sources/FuzzPredicate"),
        .testTarget(name: "CtxdebugHelpersTests", dependencies: ["CtxdebugHelpers", "TestSupport"]),
        .testTarget(name: "ConcurrencyDebugTests", dependencies: ["ConcurrencyDebug", "CConcurrencyDebug", "TestSupport"]),
        .testTarget(name: "ConcurrencyDebugTestingTests", dependencies: ["ConcurrencyDebugTesting", "ConcurrencyDebug", "ManagedContext", "ExploreModel", "TestSupport"]),
        .testTarget(name: "ScheduleControlTests", dependencies: ["ScheduleControl", "ConcurrencyDebug", "CtxdebugHelpers", "ExploreModel"]),
        .testTarget(name: "ManagedContextTests", dependencies: ["ManagedContext", "ScheduleControl", "ctxdebug-wrong-queue-sample", "ConcurrencyDebug", "CtxdebugHelpers", "ExploreModel", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift")]),
        .testTarget(name: "CoreDataTests", dependencies: ["CoreData", "XcodeModel", "ManagedContext", "ConcurrencyDebug", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift")], exclude: ["Fixtures"]),
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
        // Runs `ctxdebug bench --quick` through the built binaries.
        .testTarget(name: "BenchmarksTests", dependencies: ["ctxdebug", "ctxdebug-bench", "TestSupport"], path: "Benchmarks/Tests/BenchmarksTests"),
        // Runs the built fuzz executables on the regression inputs.
        .testTarget(
            name: "FuzzTests", dependencies: ["FuzzJournalReader", "FuzzWorkload", "FuzzObjectID", "FuzzPredicate", "TestSupport"],
            path: "Fuzz/Tests/FuzzTests"
        ),
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
