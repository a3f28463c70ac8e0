import Dispatch
public import Foundation
import SwiftParser
import SwiftSyntax
import CtxdebugHelpers
import Synchronization

/// One file ported: its text for DIR and what could not be ported.
public struct PortedSource: Sendable {
    /// The text to write: the original, changed only where Linux needs it, with
    /// `#sourceLocation` lines that point every line back at the original.
    public var text: String
    public var diagnostics: [PortDiagnostic]
    /// Whether anything but the `#sourceLocation` lines changed.
    public var changed: Bool
}

/// What `ctxdebug port` does: which sources and models, where the output goes.
public struct PortJob: Sendable {
    /// Swift files, or folders searched for them (hidden folders and `.build` skipped).
    public var sources: [String]
    /// Xcode models (`.xcdatamodeld`, `.xcdatamodel`).
    public var models: [String]
    /// The output folder.
    public var output: String
    /// Inputs are written under their path relative to this folder (when they are in it).
    public var relativeTo: String
    /// Report only: write nothing.
    public var checkOnly = false
    /// More sources, only read: for the constants the ported ones may name (`PortIndex`).
    /// The build plugin ports a few files per command and gives it the others here.
    public var indexSources: [String] = []
    /// Copy each model into the output folder.
    public var copiesModels = true
    /// Write the entity classes of models with `codeGenerationType` `class`/`category`.
    public var generatesClasses = true
    /// Write a model's generated classes as one file, `Model+CoreDataGenerated.swift`
    /// (for the build plugin, whose outputs must be known before the model is read).
    public var combinesGenerated = false

    public init(sources: [String], models: [String], output: String, relativeTo: String = FileManager.default.currentDirectoryPath) {
        self.sources = sources
        self.models = models
        self.output = output
        self.relativeTo = relativeTo
    }
}

/// What a run did.
public struct PortReport: Sendable {
    /// Output files written or that would be (with `checkOnly`), relative to the output folder.
    public var outputs: [String] = []
    /// Sources that needed a change, and sources copied as they are.
    public var changedCount = 0
    public var unchangedCount = 0
    public var generatedCount = 0
    public var lineCount = 0
    /// Constructs that could not be ported, by file and line.
    public var diagnostics: [PortDiagnostic] = []
}

public enum Porter {
    /// Ports the Swift source `text` of the file at `path` (named in `#sourceLocation`
    /// and in diagnostics as given). `relationships` (by class name) spells to-many keys
    /// as the model does.
    public static func port(source text: String, path: String, relationships: [String: [String]] = [:], sourceLocation: Bool = true) -> PortedSource {
        port(source: text, path: path, relationships: relationships, index: PortIndex(), sourceLocation: sourceLocation)
    }

    /// `port(source:path:relationships:sourceLocation:)` with the constants of the other
    /// ported files (`PortIndex`).
    static func port(source text: String, path: String, relationships: [String: [String]], index: PortIndex, sourceLocation: Bool = true) -> PortedSource {
        let body: String
        var diagnostics: [PortDiagnostic] = []
        var header: [String] = []
        var changed = false
        if mayNeedPorting(text) {
            let tree = Parser.parse(source: text)
            var known = index
            // The file's own constants, and the names that hide the others' (a parameter `ext`).
            if !index.isEmpty || PortIndex.mayDeclareConstants(text) { known.merge(PortIndex(indexing: tree, locals: true)) }
            let rewriter = PortRewriter(path: path, tree: tree, relationships: relationships, index: known)
            let rewritten = rewriter.rewrite(tree)
            body = rewritten.description
            changed = body != text
            diagnostics = rewriter.diagnostics
            for framework in rewriter.removedAppleImports {
                header += ["#if canImport(\(framework))", "import \(framework)", "#else", "import \(PortRewriter.appleOnlyImports[framework]!)", "#endif"]
            }
            if rewriter.usesNetworking && !rewriter.imports.contains("FoundationNetworking") {
                header += ["#if canImport(FoundationNetworking)", "import FoundationNetworking", "#endif"]
                changed = true
            }
            // The ported API is CoreData's; so are the types a file may name with only
            // `import Foundation` (Cocoa's `#else` above already imports CoreData).
            let needsCoreData = rewriter.usesPortedCoreDataAPI || (rewriter.usesCoreDataTypes && !rewriter.removedAppleImports.contains("Cocoa"))
            if needsCoreData && !rewriter.imports.contains("CoreData") {
                header.append("import CoreData")
                changed = true
            }
        } else {
            body = text
        }
        guard sourceLocation else { return PortedSource(text: (header.map { $0 + "\n" }.joined()) + body, diagnostics: diagnostics, changed: changed) }
        var out = header.map { $0 + "\n" }.joined()
        out += "#sourceLocation(file: \(PortRewriter.literal(path)), line: 1)\n"
        out += body
        if !body.isEmpty && !body.hasSuffix("\n") { out += "\n" }
        out += "#sourceLocation()\n"
        return PortedSource(text: out, diagnostics: diagnostics, changed: changed)
    }

    /// Whether `text` holds anything the rewriter changes or reports: a file without
    /// these words is copied without being parsed.
    static func mayNeedPorting(_ text: String) -> Bool {
        let markers = [
            "@NSManaged", "@objc", "dynamic", "#keyPath", "#selector", "URLSession", "URLRequest", "URLResponse", "observe(", "Observer",
            "NSClassFromString", "forKeyPath", "import UIKit", "import AppKit", "import Cocoa", "\"momd\"", "\"mom\"",
            // A model's extension in a constant; casts of fetch requests; perform(_:) of a selector.
            "forResource", "NSFetchRequest", "perform(", "NSSelectorFromString", "Bundle(identifier", "Bundle(for", "bundleIdentifier", "predicateFormat",
        ]
        return TextSearch.containsAny(markers, in: text) || PortRewriter.mentionsCoreDataName(text)
    }

    /// Runs `job`: reads every source and model, ports them, and writes the outputs
    /// (unless `checkOnly`). A file whose text is already what it would be is not
    /// rewritten, so a second run changes nothing and an incremental build stays so.
    public static func run(_ job: PortJob) throws(PortError) -> PortReport {
        let root = URL(fileURLWithPath: job.relativeTo).standardizedFileURL.path
        let models = try job.models.map { path throws(PortError) in (path: path, summary: try ModelSummary(contentsOf: URL(fileURLWithPath: path))) }
        var byClass: [String: [String]] = [:]
        for model in models {
            for entity in model.summary.entities { byClass[entity.className, default: []] += entity.relationships.map(\.name) }
        }
        let relationships = byClass
        let files = try collectSwiftFiles(job.sources)
        let output = URL(fileURLWithPath: job.output).standardizedFileURL
        // The constants every file may name, from all of them (and the ones only read) first.
        let index = constants(in: (files + (try collectSwiftFiles(job.indexSources))).map(\.path))

        // Port the sources, two at a time (the machine's cores), each read, ported and written alone.
        let results = LockedValue<[Int: (relative: String, lines: Int, ported: PortedSource)]>([:])
        let failure = LockedValue<PortError?>(nil)
        let next = Atomic<Int>(0)
        let workers = min(max(ProcessInfo.processInfo.activeProcessorCount, 1), max(files.count, 1))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard i < files.count, failure.withLock({ $0 == nil }) else { return }
                let file = files[i]
                do throws(PortError) {
                    guard let data = FileManager.default.contents(atPath: file.path) else {
                        throw PortError(.unreadable, "cannot be read; check the path and its permissions", path: file.display)
                    }
                    guard let text = String(data: data, encoding: .utf8) else {
                        throw PortError(.unparsable, "is not UTF-8 text, so it is not a Swift source", path: file.display)
                    }
                    let ported = port(source: text, path: file.path, relationships: relationships, index: index)
                    let relative = portedName(relativePath(file.path, root: root, fallback: file.relative))
                    if !job.checkOnly { try writeIfChanged(ported.text, to: output.appendingPathComponent(relative)) }
                    let lines = text.utf8.reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
                    results.withLock { $0[i] = (relative, lines, PortedSource(text: "", diagnostics: ported.diagnostics, changed: ported.changed)) }
                } catch {
                    failure.withLock { $0 = $0 ?? error }
                }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }

        var report = PortReport()
        for (_, r) in results.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            report.outputs.append(r.relative)
            report.lineCount += r.lines
            report.diagnostics += r.ported.diagnostics.map { d in
                var d = d
                d.path = files.first { $0.path == d.path }?.display ?? d.path
                return d
            }
            if r.ported.changed { report.changedCount += 1 } else { report.unchangedCount += 1 }
        }

        // The models: copied, and their generated entity classes.
        for model in models { try add(model, to: &report, job: job, root: root, output: output, relationships: relationships) }
        report.diagnostics.sort { ($0.path, $0.line, $0.column) < ($1.path, $1.line, $1.column) }
        return report
    }

    /// Copies `model` into the output (with `copiesModels`) and writes its generated
    /// entity classes (with `generatesClasses`), adding them to `report`.
    private static func add(
        _ model: (path: String, summary: ModelSummary), to report: inout PortReport, job: PortJob, root: String, output: URL, relationships: [String: [String]]
    ) throws(PortError) {
        let modelURL = URL(fileURLWithPath: model.path).standardizedFileURL
        let relative = relativePath(modelURL.path, root: root, fallback: modelURL.lastPathComponent)
        if job.copiesModels {
            report.outputs.append(relative)
            if !job.checkOnly { try copyModel(modelURL, to: output.appendingPathComponent(relative)) }
        }
        guard job.generatesClasses else { return }
        let folder = (relative as NSString).deletingLastPathComponent
        let generated = EntityClassGenerator.files(for: model.summary)
        var parts: [(name: String, text: String)] = []
        for file in generated {
            let ported = port(source: file.text, path: file.name, relationships: relationships, sourceLocation: false)
            report.diagnostics += ported.diagnostics
            parts.append((file.name, ported.text))
        }
        let outputs: [(name: String, text: String)] =
            job.combinesGenerated
            ? [("\(model.summary.name)+CoreDataGenerated.swift", "// The entity classes Xcode would generate for \(model.summary.name) (none when no entity uses class or category code generation).\n" + parts.map { "\n// MARK: \($0.name)\n" + $0.text }.joined())]
            : parts
        for part in outputs {
            let path = (((folder as NSString).appendingPathComponent("\(model.summary.name)+Generated")) as NSString).appendingPathComponent(part.name)
            report.outputs.append(path)
            report.generatedCount += 1
            if !job.checkOnly { try writeIfChanged(part.text, to: output.appendingPathComponent(path)) }
        }
    }

    /// The constants the files at `paths` declare (`PortIndex`), read two at a time; a
    /// file that cannot be read is left to the port, which says so.
    static func constants(in paths: [String]) -> PortIndex {
        let unique = Array(Set(paths)).sorted()
        let index = LockedValue(PortIndex())
        let next = Atomic<Int>(0)
        let workers = min(max(ProcessInfo.processInfo.activeProcessorCount, 1), max(unique.count, 1))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard i < unique.count else { return }
                guard let data = FileManager.default.contents(atPath: unique[i]), let text = String(data: data, encoding: .utf8),
                    PortIndex.mayDeclareConstants(text) || PortIndex.mayDeclareThrowingMethods(text)
                else { continue }
                let found = PortIndex(indexing: Parser.parse(source: text), locals: false)
                index.withLock { $0.merge(found) }
            }
        }
        return index.withLock { $0 }
    }

    /// The Swift files of the inputs: files as given, folders searched (sorted).
    static func collectSwiftFiles(_ inputs: [String]) throws(PortError) -> [(path: String, display: String, relative: String)] {
        var files: [(path: String, display: String, relative: String)] = []
        var seen: Set<String> = []
        let fm = FileManager.default
        for input in inputs {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: input, isDirectory: &isDirectory) else {
                throw PortError(.unreadable, "no such file or folder; give the Swift files (or folders of them) to port", path: input)
            }
            let base = URL(fileURLWithPath: input).standardizedFileURL
            if !isDirectory.boolValue {
                if seen.insert(base.path).inserted { files.append((base.path, input, base.lastPathComponent)) }
                continue
            }
            guard let walker = fm.enumerator(at: base, includingPropertiesForKeys: nil) else { continue }
            var found: [String] = []
            for case let url as URL in walker {
                let name = url.lastPathComponent
                if name.hasPrefix(".") || name == "DerivedData" || name == "Pods" {
                    walker.skipDescendants()
                    continue
                }
                if url.pathExtension == "swift" { found.append(url.standardizedFileURL.path) }
            }
            for path in found.sorted() where seen.insert(path).inserted {
                let relative = String(path.dropFirst(base.path.count + 1))
                files.append((path, (input as NSString).appendingPathComponent(relative), (base.lastPathComponent as NSString).appendingPathComponent(relative)))
            }
        }
        return files
    }

    /// The name a ported source is written under: `Note.swift` as `Note.ported.swift`.
    /// Not the original's name: a file whose `#sourceLocation` names a file of the same
    /// name at another path makes the compiler warn that their `#fileID`s conflict.
    public static func portedName(_ path: String) -> String {
        path.hasSuffix(".swift") ? String(path.dropLast(6)) + ".ported.swift" : path + ".ported.swift"
    }

    /// `path` relative to `root` when it is inside it, else `fallback`.
    static func relativePath(_ path: String, root: String, fallback: String) -> String {
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : fallback
    }

    static func writeIfChanged(_ text: String, to url: URL) throws(PortError) {
        let data = Data(text.utf8)
        if FileManager.default.contents(atPath: url.path) == data { return }
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url, options: .atomic)
        } catch {
            throw PortError(.unwritable, "cannot be written (\(error.localizedDescription)); choose an --output folder you can write", path: url.path)
        }
    }

    /// Copies the model folder, file by file, writing only what differs.
    static func copyModel(_ source: URL, to destination: URL) throws(PortError) {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: source.path, isDirectory: &isDirectory) else { return }
        if !isDirectory.boolValue {
            guard let data = fm.contents(atPath: source.path) else { throw PortError(.unreadable, "cannot be read", path: source.path) }
            try writeData(data, to: destination)
            return
        }
        guard let walker = fm.enumerator(at: source, includingPropertiesForKeys: nil) else { return }
        for case let url as URL in walker {
            var dir: ObjCBool = false
            guard fm.fileExists(atPath: url.path, isDirectory: &dir), !dir.boolValue else { continue }
            let relative = String(url.standardizedFileURL.path.dropFirst(source.path.count + 1))
            guard let data = fm.contents(atPath: url.path) else { throw PortError(.unreadable, "cannot be read", path: url.path) }
            try writeData(data, to: destination.appendingPathComponent(relative))
        }
    }

    private static func writeData(_ data: Data, to url: URL) throws(PortError) {
        if FileManager.default.contents(atPath: url.path) == data { return }
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url, options: .atomic)
        } catch {
            throw PortError(.unwritable, "cannot be written (\(error.localizedDescription))", path: url.path)
        }
    }
}
