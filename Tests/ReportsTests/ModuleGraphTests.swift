import Foundation
import TestSupport
import Testing

/// The package graph, as `swift package dump-package` prints it: Reports and
/// CoreDataLint link no runtime module, directly or through another target
/// (issue 23: "formats and models without the engine").
@Suite("The module graph")
struct ModuleGraphTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// What the formats and the linter must never link: the checker and its C, the
    /// runtime, the sample app, the replay engine, and GRDB (SQLite).
    static let runtime: Set<String> = [
        "ConcurrencyDebug", "CConcurrencyDebug", "CLibunwind", "ManagedContext", "SurfJournal", "Replay", "GRDB",
    ]
    static let runtimePackages: Set<String> = ["GRDB.swift"]

    /// A target's dependencies: the targets of this package by name, and products as
    /// "package/product".
    struct Graph {
        var dependencies: [String: [String]]

        init(dependencies: [String: [String]]) { self.dependencies = dependencies }

        /// Reads the JSON of `swift package dump-package`.
        init(dumpPackage data: Data) throws {
            let manifest = try JSONDecoder().decode(Manifest.self, from: data)
            dependencies = Dictionary(uniqueKeysWithValues: manifest.targets.map { ($0.name, $0.dependencies.map(\.name)) })
        }

        /// Every module `target` links, each with the path that reaches it.
        func closure(of target: String) -> [String: [String]] {
            var paths: [String: [String]] = [:]
            var pending: [(String, [String])] = [(target, [target])]
            while let (name, path) = pending.popLast() {
                for dependency in dependencies[name] ?? [] where paths[dependency] == nil {
                    paths[dependency] = path + [dependency]
                    pending.append((dependency, path + [dependency]))
                }
            }
            return paths
        }

        /// The paths from `target` to a runtime module, as "A → B → C".
        func runtimePaths(from target: String) -> [String] {
            closure(of: target).filter { name, _ in
                let parts = name.split(separator: "/").map(String.init)
                return ModuleGraphTests.runtime.contains(parts.last ?? name)
                    || (parts.count == 2 && ModuleGraphTests.runtimePackages.contains(parts[0]))
            }.values.map { $0.joined(separator: " → ") }.sorted()
        }
    }

    struct Manifest: Decodable {
        struct Target: Decodable {
            var name: String
            var dependencies: [Dependency]
            var type: String
            var path: String?
            /// Paths inside the target that are not its sources (fixtures).
            var exclude: [String]?
        }

        /// `{"byName": [name, condition]}`, `{"target": [name, condition]}` or
        /// `{"product": [name, package, aliases, condition]}`.
        struct Dependency: Decodable {
            var name: String

            init(from decoder: any Decoder) throws {
                let object = try decoder.singleValueContainer().decode([String: [Part]].self)
                if let product = object["product"], case .text(let name)? = product.first {
                    let package = product.count > 1 ? product[1] : .other
                    if case .text(let packageName) = package { self.name = packageName + "/" + name } else { self.name = name }
                } else if let parts = object["byName"] ?? object["target"], case .text(let name)? = parts.first {
                    self.name = name
                } else {
                    throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a dependency of no known form"))
                }
            }
        }

        enum Part: Decodable {
            case text(String)
            case other

            init(from decoder: any Decoder) throws {
                self = (try? decoder.singleValueContainer().decode(String.self)).map(Part.text) ?? .other
            }
        }

        /// `{"name": …, "targets": […], "type": {"library": ["automatic"]}}`.
        struct Product: Decodable {
            var name: String
            var targets: [String]
        }

        var targets: [Target]
        var products: [Product]
    }

    static func dumpPackage() throws -> Data {
        // A scratch path of its own: the one of the running `swift test` may be locked.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ctxdebug-dump-\(getpid())-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: scratch) }
        // SwiftPM leaves a TemporaryDirectory.* in TMPDIR: give it one that goes with the scratch path.
        let temporary = scratch.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let run = try ChildProcess(
            "/usr/bin/env", ["swift", "package", "--package-path", packageRoot.path, "--scratch-path", scratch.path, "dump-package"],
            environment: ["TMPDIR": temporary.path]
        ).wait(timeout: 300)
        try #require(run.status == 0 && !run.signaled, "swift package dump-package: \(run)")
        return Data(run.stdout.utf8)
    }

    @Test("Reports, CoreDataLint, the port (CoreDataPorter, ctxdebug-port) and the model reader link no runtime module, directly or transitively")
    func formatsLinkNoRuntime() throws {
        let graph = try Graph(dumpPackage: Self.dumpPackage())
        for target in ["Reports", "CoreDataLint", "CoreDataPorter", "ctxdebug-port", "XcodeModel", "ReportFormats", "ReplayModel", "ViolationModel", "ExploreModel"] {
            #expect(graph.dependencies[target] != nil, "no target \(target) in the package")
            #expect(graph.runtimePaths(from: target) == [], "\(target) links the runtime")
        }
        // The reading works: the CLI does link the runtime, through Replay.
        #expect(graph.runtimePaths(from: "ctxdebug").contains("ctxdebug → Replay"))
    }

    /// Modules every target may import without declaring them: the toolchain's.
    static let toolchainModules: Set<String> = [
        "Foundation", "FoundationEssentials", "FoundationXML", "FoundationNetworking", "Dispatch", "Glibc", "Musl", "Darwin", "Synchronization",
        "Testing", "XCTest", "_Concurrency", "CoreFoundation", "os", "Runtime",
    ]

    @Test("Every module a target imports is one it declares (GRDBSQLite was imported undeclared)")
    func importsAreDeclared() throws {
        let manifest = try JSONDecoder().decode(Manifest.self, from: Self.dumpPackage())
        var undeclared: [String] = []
        for target in manifest.targets where target.type == "regular" || target.type == "test" || target.type == "executable" {
            let directory = target.path ?? ((target.type == "test" ? "Tests/" : "Sources/") + target.name)
            let declared = Set(target.dependencies.map { $0.name.split(separator: "/").last.map(String.init) ?? $0.name })
            let excluded = (target.exclude ?? []).map { Self.packageRoot.appendingPathComponent(directory).appendingPathComponent($0).standardizedFileURL.path + "/" }
            for (file, module) in try Self.imports(under: Self.packageRoot.appendingPathComponent(directory), excluding: excluded)
            where !declared.contains(module) && !Self.toolchainModules.contains(module) && module != target.name {
                undeclared.append("\(target.name): \(file) imports \(module)")
            }
        }
        #expect(undeclared == [], "imported but not declared in Package.swift")
    }

    /// Each Swift file's imported modules, from its `import` lines (attributes and
    /// access levels allowed: `@_spi(Runtime) public import X`).
    static func imports(under directory: URL, excluding excluded: [String] = []) throws -> [(file: String, module: String)] {
        var found: [(String, String)] = []
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        while let url = files?.nextObject() as? URL {
            guard url.pathExtension == "swift", !excluded.contains(where: url.standardizedFileURL.path.hasPrefix) else { continue }
            var inMultilineString = false
            for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
                // Swift source quoted in a test's multi-line string is not an import.
                if line.components(separatedBy: "\"\"\"").count % 2 == 0 { inMultilineString.toggle() }
                if inMultilineString { continue }
                let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
                guard let importIndex = words.firstIndex(of: "import"), importIndex <= 1, importIndex + 1 < words.count,
                    importIndex == 0 || ["public", "package", "internal"].contains(words[0])
                else { continue }
                var nameIndex = importIndex + 1
                let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "typealias", "func", "var", "let"]
                if kinds.contains(words[nameIndex]), nameIndex + 1 < words.count { nameIndex += 1 }
                let module = words[nameIndex].split(separator: ".").first.map(String.init) ?? ""
                found.append((url.lastPathComponent, module))
            }
        }
        return found
    }

    /// The C targets of this package, and the only Swift module that imports each
    /// (docs/architecture.md, "C targets"): nothing skips a layer into C.
    static let cTargetImporters: [String: Set<String>] = [
        "CLibunwind": [], "CConcurrencyDebug": ["ConcurrencyDebug"], "CCtxdebugHelpers": ["CtxdebugHelpers"],
        "CScheduleControl": ["ScheduleControl"], "CtxdebugDispatchControl": [],
    ]

    /// The schedule control's door: the only names of ScheduleControl that ManagedContext
    /// imports, each by a scoped import (`import struct ScheduleControl.ScheduleDoor`).
    static let scheduleDoor: Set<String> = ["ScheduleDoor", "LogicalQueue"]

    /// Each `import` line of the Swift files under `directory`, as its words without
    /// attributes and access level: `["import", "ScheduleControl"]`,
    /// `["import", "struct", "ScheduleControl.ScheduleDoor"]`.
    static func importLines(under directory: URL) throws -> [(file: String, words: [String])] {
        var found: [(String, [String])] = []
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        while let url = files?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }.map(String.init)
                guard let index = words.firstIndex(of: "import"), index <= 1,
                    index == 0 || ["public", "package", "internal"].contains(words[0])
                else { continue }
                found.append((url.lastPathComponent, Array(words[index...])))
            }
        }
        return found
    }

    @Test("C targets are imported only by the module each belongs to; no header reaches into another target's folder")
    func cImportsFollowTheMap() throws {
        let manifest = try JSONDecoder().decode(Manifest.self, from: Self.dumpPackage())
        var found: [String: Set<String>] = [:]
        for target in manifest.targets where target.type == "regular" || target.type == "executable" {
            let directory = Self.packageRoot.appendingPathComponent(target.path ?? "Sources/" + target.name)
            for (_, module) in try Self.imports(under: directory) where Self.cTargetImporters[module] != nil {
                found[module, default: []].insert(target.name)
            }
        }
        for (cTarget, importers) in Self.cTargetImporters {
            #expect(found[cTarget] ?? [] == importers, "\(cTarget) is imported by \(found[cTarget] ?? [])")
        }
        #expect(found["CConcurrencyDebug"] == ["ConcurrencyDebug"], "the reading works")
        // The table above is the one the map states (docs/architecture.md: "each C target is
        // imported by the one module it belongs to, `CConcurrencyDebug` by ConcurrencyDebug…").
        let map = try String(contentsOf: Self.packageRoot.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
            .replacingOccurrences(of: "\n", with: " ")
        for (cTarget, importers) in Self.cTargetImporters where cTarget != "CLibunwind" {
            let stated = importers.isEmpty ? "`\(cTarget)` by no Swift module" : "`\(cTarget)` by \(importers.sorted().joined(separator: ", "))"
            #expect(map.contains(stated), "docs/architecture.md does not state \(stated)")
        }
        let managedContext = try #require(manifest.targets.first { $0.name == "ManagedContext" })
        let cDependencies = managedContext.dependencies.map(\.name).filter { Self.cTargetImporters[$0] != nil }
        #expect(cDependencies == [], "ManagedContext declares C targets: \(cDependencies)")
        // A header that includes another target's by a relative path ("../../X/include/x.h")
        // is an edge Package.swift does not declare.
        let sources = Self.packageRoot.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        var reaching: [String] = []
        while let url = files?.nextObject() as? URL {
            guard ["h", "c"].contains(url.pathExtension) else { continue }
            for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
            where line.hasPrefix("#include") && line.contains("\"../") {
                reaching.append("\(url.lastPathComponent): \(line)")
            }
        }
        #expect(reaching == [])
    }

    @Test("ManagedContext imports nothing of ScheduleControl but its door; ScheduleControl links no runtime")
    func scheduleControlIsALayerBelowTheRuntime() throws {
        let lines = try Self.importLines(under: Self.packageRoot.appendingPathComponent("Sources/ManagedContext"))
        let control = lines.filter { $0.words.count > 1 && $0.words.last!.split(separator: ".").first == "ScheduleControl" }
        #expect(!control.isEmpty, "the reading works: ManagedContext calls the door")
        for (file, words) in control {
            let name = words.last!.split(separator: ".").dropFirst().first.map(String.init)
            #expect(words.count == 3 && name.map(Self.scheduleDoor.contains) == true, "\(file): \(words.joined(separator: " "))")
        }
        // The door is what ScheduleControl declares as it: the two types, in one file.
        let door = try String(
            contentsOf: Self.packageRoot.appendingPathComponent("Sources/ScheduleControl/ScheduleDoor.swift"), encoding: .utf8)
        for name in Self.scheduleDoor { #expect(door.contains("package struct \(name)"), "\(name) is not the door's") }

        let graph = try Graph(dumpPackage: Self.dumpPackage())
        let reached = graph.closure(of: "ScheduleControl")
        #expect(!reached.isEmpty, "no target ScheduleControl")
        let runtime = ["ManagedContext", "CoreData", "SurfJournal", "Replay", "GRDB.swift/GRDB", "GRDB.swift/GRDBSQLite"]
        for module in runtime { #expect(reached[module] == nil, "ScheduleControl links \(reached[module]!.joined(separator: " → "))") }
        #expect(graph.dependencies["ManagedContext"]?.contains("ScheduleControl") == true, "ManagedContext is above it")
        let testing = graph.closure(of: "ConcurrencyDebugTesting")
        #expect(testing["ManagedContext"] == nil, "the in-process explore needs no runtime: \(testing["ManagedContext"] ?? [])")
    }

    /// What users import (docs/architecture.md, "Products"): the four libraries, the CLI,
    /// the port plugin and the preload library. Everything else is a target.
    static let userFacingProducts: Set<String> = [
        "ConcurrencyDebug", "ManagedContext", "CoreData", "ConcurrencyDebugTesting", "ctxdebug", "CoreDataPort",
        "CtxdebugDispatchControl",
    ]

    @Test("The products are what users import; a module a product re-exports or shows in its API is one of its modules")
    func productsAreWhatUsersImport() throws {
        let manifest = try JSONDecoder().decode(Manifest.self, from: Self.dumpPackage())
        #expect(Set(manifest.products.map(\.name)) == Self.userFacingProducts)
        // Scripts/api-breaking checks every Swift module of every library product: a module
        // of this package that a product's module imports `public` (or `@_exported`) is
        // guarded only if it is a module of a product too. C targets aside: the digester
        // reads Swift only.
        let productModules = Set(manifest.products.flatMap(\.targets))
        let packageModules = Set(manifest.targets.map(\.name))
        let swiftProductModules = productModules.filter { Self.cTargetImporters[$0] == nil }
        let publicImports = try Self.publicImports(of: swiftProductModules)
        #expect(
            publicImports.contains { $0.module == "ConcurrencyDebug" && $0.imported == "ViolationModel" },
            "the reading works: ConcurrencyDebug re-exports ViolationModel")
        let unguarded = publicImports.filter {
            packageModules.contains($0.imported) && Self.cTargetImporters[$0.imported] == nil && !productModules.contains($0.imported)
        }
        #expect(unguarded.map { "\($0.module) imports \($0.imported) publicly" } == [], "not guarded by Scripts/api-breaking")
    }

    /// The `public import` and `@_exported import` lines of each module's files.
    static func publicImports(of modules: Set<String>) throws -> [(module: String, imported: String)] {
        var found: [(String, String)] = []
        for module in modules.sorted() {
            let directory = packageRoot.appendingPathComponent("Sources/" + module)
            let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
            while let url = files?.nextObject() as? URL {
                guard url.pathExtension == "swift" else { continue }
                for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
                    let words = line.split(separator: " ").map(String.init)
                    guard let index = words.firstIndex(of: "import"), index <= 2, index + 1 < words.count, !words[0].hasPrefix("//"),
                        words[..<index].contains("public") || words[..<index].contains("@_exported")
                    else { continue }
                    let name = words[index + 1] == "struct" || words[index + 1] == "enum" ? words.last! : words[index + 1]
                    found.append((module, name.split(separator: ".").first.map(String.init) ?? name))
                }
            }
        }
        return found
    }

    @Test("A runtime module reached through another target, or a GRDB product, is found")
    func findsTransitiveRuntime() {
        let graph = Graph(dependencies: [
            "Reports": ["ReportFormats", "Helpers"],
            "Helpers": ["ManagedContext"],
            "ManagedContext": ["ConcurrencyDebug", "GRDB.swift/GRDBSQLite"],
            "ConcurrencyDebug": ["CConcurrencyDebug"],
            "CoreDataLint": ["swift-syntax/SwiftSyntax", "ReportFormats"],
        ])
        #expect(
            graph.runtimePaths(from: "Reports") == [
                "Reports → Helpers → ManagedContext",
                "Reports → Helpers → ManagedContext → ConcurrencyDebug",
                "Reports → Helpers → ManagedContext → ConcurrencyDebug → CConcurrencyDebug",
                "Reports → Helpers → ManagedContext → GRDB.swift/GRDBSQLite",
            ])
        #expect(graph.runtimePaths(from: "CoreDataLint") == [])
    }
}
