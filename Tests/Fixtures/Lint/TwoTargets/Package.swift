// swift-tools-version: 5.9
import PackageDescription

// Two targets that declare the same names: each target's code calls its own.
let package = Package(
    name: "Journal",
    platforms: [.iOS(.v17)],
    products: [.library(name: "JournalCore", targets: ["JournalCore"])],
    targets: [
        .target(name: "JournalCore"),
        .target(name: "ShareExtension", dependencies: ["JournalCore"], path: "Extensions/Share"),
    ]
)
