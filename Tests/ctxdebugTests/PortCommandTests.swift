import Foundation
import Testing
import TestSupport

/// `ctxdebug port`, through the built binary, on Tests/PortConsumer's app (its model
/// layer and model) and on a file it cannot port: exit statuses, the files written,
/// running twice, --check, and --help.
@Suite("ctxdebug port (built binary)")
struct PortCommandTests {
    static let consumer = CLI.packageRoot.appendingPathComponent("Tests/PortConsumer")

    /// Every file under `root`, by relative path, with its bytes.
    static func files(under root: URL) -> [String: Data] {
        var found: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [:] }
        for case let relative as String in walker {
            var isDirectory: ObjCBool = false
            let path = root.appendingPathComponent(relative).path
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                found[relative] = FileManager.default.contents(atPath: path)
            }
        }
        return found
    }

    @Test("Ports the app's model layer and model; a second run writes the same bytes")
    func portsTwiceTheSame() throws {
        let out = try temporaryDirectory("port")
        let arguments = ["port", "App/Model", "--model", "App/Model.xcdatamodeld", "--output", out.path]
        let run = try CLI.ctxdebug(arguments, in: Self.consumer)
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.contains("wrote 6 files into \(out.path): 3 sources ported, 0 unchanged, 2 generated"), "\(run.stderr)")
        let first = Self.files(under: out)
        #expect(
            first.keys.sorted() == [
                "App/Model+Generated/Tag+CoreDataClass.swift", "App/Model+Generated/Tag+CoreDataProperties.swift", "App/Model.xcdatamodeld/Model.xcdatamodel/contents",
                "App/Model/Folder.ported.swift", "App/Model/Note.ported.swift", "App/Model/NotebookStore.ported.swift",
            ])
        let note = try #require(first["App/Model/Note.ported.swift"].map { String(decoding: $0, as: UTF8.self) })
        #expect(note.hasPrefix("#sourceLocation(file: \"\(Self.consumer.appendingPathComponent("App/Model/Note.swift").path)\", line: 1)\n"))
        #expect(!note.contains("@NSManaged") && !note.contains("@objc") && !note.contains("#keyPath("))
        let again = try CLI.ctxdebug(arguments, in: Self.consumer)
        #expect(again.status == 0, "\(again)")
        #expect(Self.files(under: out) == first)
    }

    @Test("--check writes nothing; what cannot be ported exits 1 with file:line:col: error:")
    func checkAndUnportable() throws {
        let out = try temporaryDirectory("port-check").appendingPathComponent("never")
        let fixture = "Tests/CoreDataPorterTests/Fixtures/Unportable.swift"
        let run = try CLI.ctxdebug(["port", fixture, "--output", out.path, "--check"], in: CLI.packageRoot)
        #expect(run.status == 1, "\(run)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let errors = run.stderr.split(separator: "\n").filter { $0.contains(": error: ") }
        #expect(errors.count == 5, "\(run.stderr)")
        #expect(errors.first?.hasPrefix("\(fixture):7:23: error: key-value observing") == true, "\(run.stderr)")
        #expect(run.stderr.contains("5 constructs cannot be ported"))
    }

    @Test("Bad input: a missing source or a non-model exits 65 and says what to do; no output is 64")
    func badInput() throws {
        let out = try temporaryDirectory("port-bad")
        let missing = try CLI.ctxdebug(["port", "No/Such.swift", "--output", out.path], in: CLI.packageRoot)
        #expect(missing.status == 65, "\(missing)")
        #expect(missing.stderr.contains("No/Such.swift: no such file or folder"), "\(missing.stderr)")
        let notAModel = try CLI.ctxdebug(["port", "--model", "Package.swift", "--output", out.path], in: CLI.packageRoot)
        #expect(notAModel.status == 65, "\(notAModel)")
        #expect(notAModel.stderr.contains("not a Core Data model"), "\(notAModel.stderr)")
        let usage = try CLI.ctxdebug(["port", "App/Model"], in: Self.consumer)
        #expect(usage.status == 64, "\(usage)")
    }

    @Test("--help shows what changes, an example and the exit statuses")
    func help() throws {
        let run = try CLI.ctxdebug(["port", "--help"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("  ctxdebug port App/Model --model App/Model.xcdatamodeld --output Ported\n"))
        #expect(run.stdout.contains("#sourceLocation"))
        #expect(run.stdout.contains("65  a source or model cannot be read"))
    }

    @Test("The plugin's tool, ctxdebug-port, has --help, and an unknown option says where to look")
    func pluginToolHelp() throws {
        let tool = try CLI.product("ctxdebug-port")
        let help = try CLI.run(tool, ["--help"])
        #expect(help.status == 0, "\(help)")
        #expect(help.stdout.contains("USAGE: ctxdebug-port SOURCE... [--model M.xcdatamodeld ...] --output DIR"), "\(help.stdout)")
        #expect(help.stdout.contains("--combine-generated"))
        let unknown = try CLI.run(tool, ["--bogus"])
        #expect(unknown.status == 64, "\(unknown)")
        #expect(unknown.stderr.contains("ctxdebug-port: error: unknown option --bogus (see --help)"), "\(unknown.stderr)")
    }

    @Test("ctxdebug-port --index reads other sources for the constants a batch's files name (the plugin's way)")
    func pluginToolIndex() throws {
        let tool = try CLI.product("ctxdebug-port")
        let moods = CLI.packageRoot.appendingPathComponent("Tests/CoreDataPorterTests/Fixtures/Moods")
        let store = moods.appendingPathComponent("MoodStore.swift").path
        let out = try temporaryDirectory("port-index")
        // MoodStore.swift alone: the observer's selector and the model's extension are ModelConstants', in Constants.swift.
        let alone = try CLI.run(tool, [store, "--output", out.appendingPathComponent("alone").path, "--relative-to", moods.path])
        #expect(alone.status == 1, "\(alone)")
        #expect(alone.stderr.contains("MoodStore.swift:12:44: error: the port cannot tell which method ModelConstants.saveSelector names"), "\(alone.stderr)")
        let indexed = try CLI.run(tool, [store, "--index", moods.path, "--output", out.appendingPathComponent("indexed").path, "--relative-to", moods.path])
        #expect(indexed.status == 0, "\(indexed)")
        let text = try String(contentsOf: out.appendingPathComponent("indexed/MoodStore.ported.swift"), encoding: .utf8)
        #expect(text.contains("{ observer, note in observer.contextDidSave(note) }"))
        #expect(text.contains("Bundle.main.url(forModelResource: ModelConstants.name, withExtension: ModelConstants.modelExtension)"))
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("indexed/Constants.ported.swift").path))
    }
}
