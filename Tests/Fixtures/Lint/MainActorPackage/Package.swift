// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Reader",
    targets: [
        .target(name: "Reader", swiftSettings: [.defaultIsolation(MainActor.self)]),
    ]
)
