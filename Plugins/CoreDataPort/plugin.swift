import Foundation
import PackagePlugin

/// Ports an app's Core Data model layer inside `swift build`: the target's
/// `coredata-port.json` lists the app's sources and models by path, relative to the
/// package root, and every eight of them become a build command of `ctxdebug-port` with
/// the files (and the models) as inputs and the ported files as outputs. The app's files
/// are only read.
///
///     {
///       "sources": ["App/Model/JournalEntry.swift", "App/Model"],
///       "models": ["App/Model.xcdatamodeld"]
///     }
///
/// A folder in `sources` stands for every `.swift` file in it (read when the package
/// graph is built: a file added to it later needs `swift package clean` or a touch of
/// the configuration file to be seen).
@main
struct CoreDataPort: BuildToolPlugin {
    struct Configuration: Decodable {
        var sources: [String]
        var models: [String]?
    }

    static let configurationName = "coredata-port.json"
    static let filesPerCommand = 8

    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let root = context.package.directoryURL
        let configurationURL = target.directoryURL.appending(path: Self.configurationName)
        guard let data = FileManager.default.contents(atPath: configurationURL.path(percentEncoded: false)) else {
            throw PluginError("\(configurationURL.path(percentEncoded: false)): not found. The CoreDataPort plugin reads the target's \(Self.configurationName): {\"sources\": [\"App/Model\"], \"models\": [\"App/Model.xcdatamodeld\"]}, paths relative to the package root.")
        }
        let configuration: Configuration
        do {
            configuration = try JSONDecoder().decode(Configuration.self, from: data)
        } catch {
            throw PluginError("\(configurationURL.path(percentEncoded: false)): not a valid configuration (\(error)). Write {\"sources\": [...], \"models\": [...]}, paths relative to the package root.")
        }
        let tool = try context.tool(named: "ctxdebug-port")
        let output = context.pluginWorkDirectoryURL.appending(path: "Ported")
        let models = (configuration.models ?? []).map { root.appending(path: $0) }
        let modelFiles = models.flatMap { files(under: $0) }
        var commands: [Command] = []
        // A command per few files: a change re-ports only its batch, and the tool's start-up
        // (about 25 ms in a debug build, most of a small file's port) is paid per batch.
        let sources = try swiftFiles(configuration.sources, root: root, configuration: configurationURL)
        // Every command reads all the sources for the constants its files may name (a
        // model's extension, a #selector kept in a let, in another file): an edit re-runs
        // every batch's port, which rewrites only the copies whose text changes.
        // A dependency ported too (its own coredata-port.json) is read for them as well: a
        // test target names its library's constants (`ModelFileExtension.mapping.rawValue`).
        let dependencies = dependencySources(of: target)
        let indexed = configuration.sources + dependencies
        let indexedFiles = (try? swiftFiles(dependencies, root: root, configuration: configurationURL)) ?? []
        let index = indexed.flatMap { ["--index", root.appending(path: $0).path(percentEncoded: false)] }
        for start in stride(from: 0, to: sources.count, by: Self.filesPerCommand) {
            let batch = Array(sources[start..<min(start + Self.filesPerCommand, sources.count)])
            let relatives = batch.map { String($0.path(percentEncoded: false).dropFirst(root.path(percentEncoded: false).count)).trimmingCharacters(in: CharacterSet(charactersIn: "/")) }
            commands.append(
                .buildCommand(
                    displayName: "Porting \(relatives[0])\(batch.count > 1 ? " and \(batch.count - 1) more" : "") for Linux",
                    executable: tool.url,
                    arguments: batch.map { $0.path(percentEncoded: false) } + models.flatMap { ["--model", $0.path(percentEncoded: false)] } + index + [
                        "--output", output.path(percentEncoded: false), "--relative-to", root.path(percentEncoded: false), "--no-model-copy", "--no-generated",
                    ],
                    inputFiles: sources + indexedFiles + [configurationURL] + modelFiles,
                    // Note.swift is written as Note.ported.swift (Porter.portedName): the
                    // same name would make the compiler warn of conflicting #fileIDs.
                    outputFiles: relatives.map { output.appending(path: String($0.dropLast(".swift".count)) + ".ported.swift") }))
        }
        for model in models {
            let relative = String(model.path(percentEncoded: false).dropFirst(root.path(percentEncoded: false).count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            let name = model.deletingPathExtension().lastPathComponent
            let generated = output.appending(path: (relative as NSString).deletingLastPathComponent).appending(path: "\(name)+Generated").appending(path: "\(name)+CoreDataGenerated.swift")
            commands.append(
                .buildCommand(
                    displayName: "Generating the entity classes of \(relative)",
                    executable: tool.url,
                    arguments: ["--model", model.path(percentEncoded: false), "--output", output.path(percentEncoded: false), "--relative-to", root.path(percentEncoded: false), "--no-model-copy", "--combine-generated"],
                    inputFiles: [configurationURL] + modelFiles,
                    outputFiles: [generated]))
        }
        return commands
    }

    /// The sources the configurations of `target`'s ported dependencies (in this package) name.
    private func dependencySources(of target: SourceModuleTarget) -> [String] {
        var sources: [String] = []
        for dependency in target.dependencies {
            guard case .target(let other) = dependency, let module = other as? SourceModuleTarget else { continue }
            let url = module.directoryURL.appending(path: Self.configurationName)
            guard let data = FileManager.default.contents(atPath: url.path(percentEncoded: false)),
                let configuration = try? JSONDecoder().decode(Configuration.self, from: data)
            else { continue }
            sources += configuration.sources
        }
        return sources
    }

    /// The Swift files the configuration names: files as they are, folders searched.
    private func swiftFiles(_ paths: [String], root: URL, configuration: URL) throws -> [URL] {
        var found: [URL] = []
        for path in paths {
            let url = root.appending(path: path)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path(percentEncoded: false), isDirectory: &isDirectory) else {
                throw PluginError("\(configuration.path(percentEncoded: false)): '\(path)' does not exist (paths are relative to the package root, \(root.path(percentEncoded: false))).")
            }
            found += isDirectory.boolValue ? files(under: url).filter { $0.pathExtension == "swift" } : [url]
        }
        return found
    }

    /// Every file under `url` (or `url` itself), sorted, hidden ones skipped.
    private func files(under url: URL) -> [URL] {
        guard let walker = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles]) else { return [url] }
        var files: [URL] = []
        for case let file as URL in walker where !file.hasDirectoryPath {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: file.path(percentEncoded: false), isDirectory: &isDirectory), !isDirectory.boolValue { files.append(file) }
        }
        return files.isEmpty ? [url] : files.sorted { $0.path(percentEncoded: false) < $1.path(percentEncoded: false) }
    }
}

struct PluginError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
