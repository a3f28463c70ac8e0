// swift-tools-version: 6.1
// A user's package: it depends on ctxdebug by path, as an app does, and compiles the
// code samples of README.md, docs/getting-started.md, docs/concurrency-debug.md and
// docs/explore.md.
// Scripts/check-doc-samples writes each target's main.swift from the docs (one
// target per document) and builds this package; a sample that stops compiling fails
// Scripts/test, with the error at the document's own line. Prelude.swift files hold
// what a document's samples take as given (a model, a container).
import PackageDescription

let samples = ["ReadmeSamples", "GettingStartedSamples", "ConcurrencyDebugSamples", "ExploreSamples"]

let package = Package(
    name: "ctxdebug-doc-samples",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "ctxdebug", path: "../..")],
    targets: samples.map { sample in
        .executableTarget(
            name: sample,
            dependencies: [
                .product(name: "ManagedContext", package: "ctxdebug"),
                .product(name: "ConcurrencyDebug", package: "ctxdebug"),
                .product(name: "ConcurrencyDebugTesting", package: "ctxdebug"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)])
    }
)
