// swift-tools-version: 6.1
// An iOS app's repository as `ctxdebug port` meets it (docs/coredata-port.md): the app's
// model layer in App/Model/*.swift and App/Model.xcdatamodeld, untouched, and a Linux
// target that builds it through the CoreDataPort plugin against ctxdebug's CoreData.
// CoreDataPorterTests (PortConsumerTests) builds and runs NotebookCheck: the ported code
// must compile, work, and be reported by the checker at App/Model's own lines.
import PackageDescription

let package = Package(
    name: "ctxdebug-port-consumer",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "ctxdebug", path: "../..")],
    targets: [
        .executableTarget(
            name: "NotebookCheck",
            dependencies: [.product(name: "CoreData", package: "ctxdebug")],
            exclude: ["coredata-port.json"],
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "CoreDataPort", package: "ctxdebug")]),
        // The SurfJournal flows on App/SurfJournal (Xcode-era style) over the chapter's
        // model and seed from ../shared/real-apps/surfjournal.
        .executableTarget(
            name: "JournalCheck",
            dependencies: [.product(name: "CoreData", package: "ctxdebug")],
            exclude: ["coredata-port.json"],
            swiftSettings: [.swiftLanguageMode(.v5)],
            plugins: [.plugin(name: "CoreDataPort", package: "ctxdebug")]),
    ]
)
