import Foundation
import SwiftParser
import Testing

@testable import CoreDataPorter

/// Issue 46, item 9: the compiled model's extension kept in a constant, in the same file
/// or in another of the ported sources (our own fixtures, in the style of real stacks).
@Suite struct PortConstantsTests {
    func ported(_ source: String, index: PortIndex = PortIndex()) -> PortedSource {
        Porter.port(source: source, path: "/app/Model/File.swift", relationships: [:], index: index, sourceLocation: false)
    }

    @Test func aModelExtensionInAConstantIsTheModelsToo() {
        let source = """
            import CoreData
            let modelExtension = "momd"
            enum Model { static let ext = "mom"; static let seedExtension = "json" }
            final class Stack {
                let kind = "momd"
                var mutable = "momd"
                func urls(bundle: Bundle, name: String) {
                    _ = bundle.url(forResource: name, withExtension: modelExtension)
                    _ = bundle.path(forResource: name, ofType: Model.ext)
                    _ = bundle.url(forResource: name, withExtension: self.kind)
                    _ = bundle.url(forResource: name, withExtension: kind)
                    _ = bundle.url(forResource: name, withExtension: Model.seedExtension)
                    _ = bundle.url(forResource: name, withExtension: mutable)
                    _ = bundle.url(forResource: name, withExtension: Elsewhere.ext)
                }
            }

            """
        let result = ported(source)
        let lines = result.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 17)
        #expect(lines[7] == "        _ = bundle.url(forModelResource: name, withExtension: modelExtension)")
        #expect(lines[8] == "        _ = bundle.path(forModelResource: name, ofType: Model.ext)")
        #expect(lines[9] == "        _ = bundle.url(forModelResource: name, withExtension: self.kind)")
        #expect(lines[10] == "        _ = bundle.url(forModelResource: name, withExtension: kind)")
        // Another resource's, a `var` (it may change), and a constant no ported file declares.
        #expect(lines[11] == "        _ = bundle.url(forResource: name, withExtension: Model.seedExtension)")
        #expect(lines[12] == "        _ = bundle.url(forResource: name, withExtension: mutable)")
        #expect(lines[13] == "        _ = bundle.url(forResource: name, withExtension: Elsewhere.ext)")
        #expect(result.diagnostics.isEmpty)
    }

    /// A name declared twice with different values is left as it is.
    @Test func aNameWithTwoValuesIsNotTheModels() {
        let source = """
            import CoreData
            enum A { static let ext = "momd" }
            enum B { static let ext = "png" }
            let a = Bundle.main.url(forResource: "M", withExtension: A.ext)
            let b = Bundle.main.url(forResource: "M", withExtension: ext)

            """
        let lines = ported(source).text.split(separator: "\n").map(String.init)
        #expect(lines[3] == "let a = Bundle.main.url(forModelResource: \"M\", withExtension: A.ext)")
        // Not the model's lookup; as another resource of the main bundle, the lookup that
        // also searches the program's resource bundles.
        #expect(lines[4] == "let b = Bundle.main.url(forPortedResource: \"M\", withExtension: ext)")
    }

    /// A parameter or binding of the same name hides the constant, so a bare name that
    /// may be either is left as it is.
    @Test func aParameterOfTheSameNameIsNotTheConstant() {
        let source = """
            import CoreData
            let ext = "momd"
            func url(_ bundle: Bundle, ext: String) -> URL? { bundle.url(forResource: "M", withExtension: ext) }
            let sel = #selector(Stack.reload)
            func observe(_ center: NotificationCenter, sel: Selector) { center.addObserver(self, selector: sel, name: .r, object: nil) }
            extension Stack { func reload() {} }

            """
        let result = ported(source)
        let lines = result.text.split(separator: "\n").map(String.init)
        #expect(lines[2] == "func url(_ bundle: Bundle, ext: String) -> URL? { bundle.url(forResource: \"M\", withExtension: ext) }")
        #expect(result.diagnostics.map(\.line) == [5])
        #expect(result.diagnostics.first?.message.contains("cannot tell which method sel names") == true)
        // The constant in another file, the parameter in this one.
        let index = PortIndex(indexing: Parser.parse(source: "enum Constants {\n    static let ext = \"momd\"\n}\n"), locals: false)
        let call = "func url(_ bundle: Bundle, ext: String) -> URL? { bundle.url(forResource: \"M\", withExtension: ext) }\n"
        #expect(ported("import CoreData\n" + call, index: index).text == "import CoreData\n" + call)
    }

    /// The constant in another ported file: `Porter.run` indexes every source first, and
    /// the plugin's tool reads the other sources with `--index`.
    @Test func aConstantInAnotherPortedFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("port-constants-\(UUID().uuidString)")
        let sources = folder.appendingPathComponent("App")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "import Foundation\n\nenum Constants {\n    static let modelExtension = \"momd\"\n}\n".write(to: sources.appendingPathComponent("Constants.swift"), atomically: true, encoding: .utf8)
        let stack = "import CoreData\n\nlet url = Bundle.main.url(forResource: \"Model\", withExtension: Constants.modelExtension)!\n"
        try stack.write(to: sources.appendingPathComponent("Stack.swift"), atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("out")
        _ = try Porter.run(PortJob(sources: [sources.path], models: [], output: out.path, relativeTo: folder.path))
        let text = try String(contentsOf: out.appendingPathComponent("App/Stack.ported.swift"), encoding: .utf8)
        #expect(text.contains("\nlet url = Bundle.main.url(forModelResource: \"Model\", withExtension: Constants.modelExtension)!\n"))
        // One batch of the plugin: Stack.swift alone, Constants.swift only read.
        var batch = PortJob(sources: [sources.appendingPathComponent("Stack.swift").path], models: [], output: folder.appendingPathComponent("batch").path, relativeTo: folder.path)
        batch.indexSources = [sources.path]
        let report = try Porter.run(batch)
        #expect(report.outputs == ["App/Stack.ported.swift"])
        let batchText = try String(contentsOf: folder.appendingPathComponent("batch/App/Stack.ported.swift"), encoding: .utf8)
        #expect(batchText == text)
    }

    /// An enum case's raw value: JSQCoreDataKit's `enum ModelFileExtension: String { case
    /// bundle = "momd" }`, read as `ModelFileExtension.bundle.rawValue` (its CoreDataModel.swift).
    @Test func anEnumCasesRawValueIsTheModelsToo() {
        let source = """
            import CoreData
            public enum ModelFileExtension: String {
                case bundle = "momd"
                case sqlite = "sqlite"
            }
            enum Other: String { case bundle = "png" }
            func url(bundle: Bundle, name: String) {
                _ = bundle.url(forResource: name, withExtension: ModelFileExtension.bundle.rawValue)
                _ = bundle.url(forResource: name, withExtension: ModelFileExtension.sqlite.rawValue)
                _ = bundle.url(forResource: name, withExtension: Other.bundle.rawValue)
                _ = bundle.url(forResource: name, withExtension: bundle.rawValue)
            }

            """
        let lines = ported(source).text.split(separator: "\n").map(String.init)
        #expect(lines[7] == "    _ = bundle.url(forModelResource: name, withExtension: ModelFileExtension.bundle.rawValue)")
        #expect(lines[8] == "    _ = bundle.url(forResource: name, withExtension: ModelFileExtension.sqlite.rawValue)")
        #expect(lines[9] == "    _ = bundle.url(forResource: name, withExtension: Other.bundle.rawValue)")
        // Not `Type.case.rawValue`: a value's property of that name.
        #expect(lines[10] == "    _ = bundle.url(forResource: name, withExtension: bundle.rawValue)")
    }

    /// A compiled mapping model's extension: JSQCoreDataKit's `case mapping = "cdm"`, read as
    /// `bundle.url(forResource: name, withExtension: ModelFileExtension.mapping.rawValue)`
    /// (its MigrationTests.swift:233), and the literal.
    @Test func aMappingModelsExtensionIsTheModelsToo() {
        let source = """
            enum ModelFileExtension: String {
                case mapping = "cdm"
            }
            func url(bundle: Bundle, name: String) {
                _ = bundle.url(forResource: name, withExtension: ModelFileExtension.mapping.rawValue)
                _ = bundle.url(forResource: name, withExtension: "cdm")
            }

            """
        let lines = ported(source).text.split(separator: "\n").map(String.init)
        #expect(lines.contains("    _ = bundle.url(forModelResource: name, withExtension: ModelFileExtension.mapping.rawValue)"))
        #expect(lines.contains("    _ = bundle.url(forModelResource: name, withExtension: \"cdm\")"))
    }

    /// `Bundle(identifier:)` of a framework that holds the model (JSQCoreDataKit's example
    /// model: `Bundle(identifier: "com.hexedbits.ExampleModel")!`): Linux has no framework
    /// bundles, so the port asks CoreData's `Bundle(portedIdentifier:)`.
    @Test func aBundleByIdentifierIsTheProgramsOnLinux() {
        let source = """
            import Foundation
            public let modelBundle = Bundle(identifier: "com.hexedbits.ExampleModel")!
            let other = Foundation.Bundle(path: "/tmp")

            """
        let result = ported(source)
        let lines = result.text.split(separator: "\n").map(String.init)
        #expect(lines.contains("public let modelBundle = Bundle(portedIdentifier: \"com.hexedbits.ExampleModel\")!"))
        #expect(lines.contains("let other = Foundation.Bundle(path: \"/tmp\")"))
        #expect(result.text.contains("import CoreData"))
    }

    /// `Bundle(for: X.self)`, a test bundle's or a framework's (CoreDataMigrationRevised-
    /// Example's tests read their stores from `Bundle(for: CoreDataMigratorTests.self)`): on
    /// Linux the class's module's SwiftPM resources, which CoreData's `Bundle(portedFor:)`
    /// finds. A qualified `Foundation.Bundle(for:)` and other initializers are left alone.
    @Test func aClassesBundleIsItsModulesResources() {
        let source = """
            import Foundation
            let url = Bundle(for: CoreDataMigratorTests.self).resourceURL!
            let other = Foundation.Bundle(for: Other.self)
            let main = Bundle(path: "/tmp")

            """
        let result = ported(source)
        let lines = result.text.split(separator: "\n").map(String.init)
        #expect(lines.contains("let url = Bundle(portedFor: CoreDataMigratorTests.self).resourceURL!"))
        #expect(lines.contains("let other = Foundation.Bundle(for: Other.self)"))
        #expect(lines.contains("let main = Bundle(path: \"/tmp\")"))
        #expect(result.text.contains("import CoreData"))
    }

    /// A version of a compiled model and the models of a bundle (CoreDataMigrationRevised-
    /// Example: `url(forResource: version, withExtension: "mom", subdirectory: "X.momd")`;
    /// JSQCoreDataKit: `urls(forResourcesWithExtension: ModelFileExtension.bundle.rawValue,
    /// subdirectory: nil)`): CoreData's lookups of the Xcode model's versions. Other
    /// resources' lookups are left alone.
    @Test func aCompiledModelsVersionsAreLookedUpInTheXcodeModel() {
        let source = """
            import Foundation
            enum ModelFileExtension: String { case bundle = "momd"; case versionedFile = "mom"; case sqlite = "sqlite" }
            let omo = bundle.url(forResource: name, withExtension: "omo", subdirectory: "Model.momd")
            let mom = bundle.url(forResource: name, withExtension: "mom", subdirectory: sub)
            let all = bundle.urls(forResourcesWithExtension: ModelFileExtension.bundle.rawValue, subdirectory: nil)
            let versions = bundle.urls(forResourcesWithExtension: ModelFileExtension.versionedFile.rawValue, subdirectory: name)
            let stores = bundle.urls(forResourcesWithExtension: ModelFileExtension.sqlite.rawValue, subdirectory: nil)
            let json = bundle.url(forResource: name, withExtension: "json", subdirectory: "Seeds")

            """
        let lines = ported(source).text.split(separator: "\n").map(String.init)
        #expect(lines.contains("let omo = bundle.url(forModelResource: name, withExtension: \"omo\", subdirectory: \"Model.momd\")"))
        #expect(lines.contains("let mom = bundle.url(forModelResource: name, withExtension: \"mom\", subdirectory: sub)"))
        #expect(lines.contains("let all = bundle.urls(forModelResourcesWithExtension: ModelFileExtension.bundle.rawValue, subdirectory: nil)"))
        #expect(lines.contains("let versions = bundle.urls(forModelResourcesWithExtension: ModelFileExtension.versionedFile.rawValue, subdirectory: name)"))
        #expect(lines.contains("let stores = bundle.urls(forResourcesWithExtension: ModelFileExtension.sqlite.rawValue, subdirectory: nil)"))
        #expect(lines.contains("let json = bundle.url(forResource: name, withExtension: \"json\", subdirectory: \"Seeds\")"))
    }

    /// A bundle's `bundleIdentifier` (AERecord names its store after it), nil for every
    /// bundle on Linux: CoreData's `portedBundleIdentifier`. A member of that name on
    /// something that is not a bundle is left alone.
    @Test func aBundlesIdentifierIsCoreDatasOnLinux() {
        let source = """
            import Foundation
            let name = Bundle.main.bundleIdentifier ?? Bundle(for: Stack.self).bundleIdentifier!
            let test = self.unitTestBundle.bundleIdentifier
            let app = settings.bundleIdentifier

            """
        let lines = ported(source).text.split(separator: "\n").map(String.init)
        #expect(lines.contains("let name = Bundle.main.portedBundleIdentifier ?? Bundle(portedFor: Stack.self).portedBundleIdentifier!"))
        #expect(lines.contains("let test = self.unitTestBundle.portedBundleIdentifier"))
        #expect(lines.contains("let app = settings.bundleIdentifier"))
    }

    /// Another resource of the main bundle (SurfJournal's seeded store, BubbleTeaFinder's
    /// seed.json): CoreData's lookup that also searches the program's SwiftPM resource
    /// bundles. Another bundle's (`Bundle.module`, a bundle variable) is left as it is.
    @Test func aMainBundleResourceIsLookedUpInTheProgramsResources() {
        let source = """
            import Foundation
            let seeded = Bundle.main.url(forResource: modelName, withExtension: "sqlite")!
            let json = Bundle.main.path(forResource: "seed", ofType: "json")
            let module = Bundle.module.url(forResource: "seed", withExtension: "json")
            let model = Bundle.main.url(forResource: "Model", withExtension: "momd")

            """
        let result = ported(source)
        let lines = result.text.split(separator: "\n").map(String.init)
        #expect(lines.contains("let seeded = Bundle.main.url(forPortedResource: modelName, withExtension: \"sqlite\")!"))
        #expect(lines.contains("let json = Bundle.main.path(forPortedResource: \"seed\", ofType: \"json\")"))
        #expect(lines.contains("let module = Bundle.module.url(forResource: \"seed\", withExtension: \"json\")"))
        #expect(lines.contains("let model = Bundle.main.url(forModelResource: \"Model\", withExtension: \"momd\")"))
        #expect(result.text.contains("import CoreData"))
    }
}

/// AERecord's tests read `predicate.predicateFormat`, which Foundation on Linux writes as
/// `BLOCKPREDICATE(…)`; the port makes it CoreData's `portedPredicateFormat`, at its line.
@Suite struct PortPredicateFormatTests {
    @Test func predicateFormatBecomesThePortedOne() {
        let source = """
            import CoreData
            func check(_ predicate: NSPredicate, _ other: NSCompoundPredicate?) -> Bool {
                predicate.predicateFormat.contains("==") && other?.predicateFormat != nil
            }

            """
        let result = Porter.port(source: source, path: "/app/Check.swift", relationships: [:], index: PortIndex(), sourceLocation: false)
        let lines = result.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[2] == "    predicate.portedPredicateFormat.contains(\"==\") && other?.portedPredicateFormat != nil")
        #expect(result.changed)
    }
}
