import Foundation
import Testing

@testable import CoreDataPorter

/// Issue 46, item 9: what real model layers do that Xcode lets through and Linux does
/// not: Core Data's types with only `import Foundation`, casts between fetch requests,
/// and `NSClassFromString` (our own fixtures, in their style).
@Suite struct PortImportsAndCastsTests {
    func ported(_ source: String) -> PortedSource {
        Porter.port(source: source, path: "/app/Model/File.swift", sourceLocation: false)
    }

    /// Xcode's umbrella import let a file name Core Data's types with only `import
    /// Foundation`; on Linux they are in CoreData, so the copy imports it above its lines.
    @Test func aFileThatUsesCoreDataWithOnlyFoundationGetsTheImport() {
        let source = """
            import Foundation

            final class Store {
                let container: NSPersistentContainer
                init(container: NSPersistentContainer) { self.container = container }
                func moods() throws -> [Mood] { try container.viewContext.fetch(NSFetchRequest<Mood>(entityName: "Mood")) }
            }

            """
        let result = Porter.port(source: source, path: "/s.swift")
        #expect(result.changed)
        #expect(result.diagnostics.isEmpty)
        #expect(result.text == "import CoreData\n#sourceLocation(file: \"/s.swift\", line: 1)\n" + source + "#sourceLocation()\n")
        // A notification name of Core Data's is enough.
        let observer = ported("import Foundation\nlet name = Notification.Name.NSManagedObjectContextDidSave\n")
        #expect(observer.text == "import CoreData\nimport Foundation\nlet name = Notification.Name.NSManagedObjectContextDidSave\n")
        // Not when it imports CoreData already (in any form), nor for the words in a string or comment.
        for kept in [
            "import CoreData\nlet c: NSManagedObjectContext? = nil\n",
            "#if canImport(CoreData)\nimport CoreData\n#endif\nlet c: NSManagedObjectContext? = nil\n",
            "@preconcurrency import CoreData\nclass Note: NSManagedObject {}\n",
            "import Foundation\n// an NSManagedObject subclass\nlet label = \"NSFetchRequest\"\n",
        ] {
            let result = ported(kept)
            #expect(result.text == kept)
            #expect(!result.changed)
        }
    }

    /// Every name that brings the import is one CoreData declares: a list that drifted
    /// from the module would add the import for a name it does not have.
    @Test func theCoreDataNamesAreCoreDatas() throws {
        let sources = CoreDataPorterTests.packageRoot.appendingPathComponent("Sources/CoreData")
        var text = ""
        let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL {
            if url.pathExtension == "swift" { text += try String(contentsOf: url, encoding: .utf8) }
        }
        try #require(!text.isEmpty, "CoreData's sources are not at \(sources.path)")
        for name in PortRewriter.coreDataNames.sorted() {
            let declared = ["class \(name)", "struct \(name)", "protocol \(name)", "enum \(name)", "let \(name)", "var \(name)", "typealias \(name)", "func \(name)"]
            #expect(declared.contains { text.contains($0) }, "\(name) is not declared in Sources/CoreData")
        }
    }

    /// `as!` between two specializations of a generic class aborts on Linux, where
    /// Objective-C's erased generics let it through: the copy makes the request with the
    /// converting initializer. `as?` gives nil when the results cannot be of the type.
    @Test func fetchRequestCastsBecomeConversions() {
        let source = """
            import CoreData
            let r = Mood.fetchRequest() as! NSFetchRequest<Mood>
            func typed(_ request: NSFetchRequest<any NSFetchRequestResult>) -> NSFetchRequest<Mood>? {
                guard let typed = request as? NSFetchRequest<Mood> else { return nil }
                return typed
            }
            let erased = controller.fetchRequest as! NSFetchRequest<NSFetchRequestResult>
            let split = Mood.fetchRequest()
                as! NSFetchRequest<Mood>  // Xcode 8's style
            let grouped = (a ?? b) as! CoreData.NSFetchRequest<Note>
            let right = a ?? b as! NSFetchRequest<Note>
            let object = value as? Mood
            let upcast = request as NSPersistentStoreRequest

            """
        let expected = """
            import CoreData
            let r = NSFetchRequest<Mood>(Mood.fetchRequest())
            func typed(_ request: NSFetchRequest<any NSFetchRequestResult>) -> NSFetchRequest<Mood>? {
                guard let typed = NSFetchRequest<Mood>(fitting: request) else { return nil }
                return typed
            }
            let erased = NSFetchRequest<NSFetchRequestResult>(controller.fetchRequest)
            let split = NSFetchRequest<Mood>(Mood.fetchRequest()
                )  // Xcode 8's style
            let grouped = CoreData.NSFetchRequest<Note>((a ?? b))
            let right = a ?? NSFetchRequest<Note>(b)
            let object = value as? Mood
            let upcast = request as NSPersistentStoreRequest

            """
        let result = ported(source)
        #expect(result.text == expected)
        #expect(result.changed)
        #expect(result.diagnostics.isEmpty)
    }

    /// `is` between fetch requests is always true on Apple platforms and false on Linux
    /// (different specializations): the copy asks whether the conversion fits. A cast in
    /// a pattern cannot become a call, so it is reported with what to write.
    @Test func fetchRequestChecksAndPatterns() {
        let source = """
            import CoreData
            let isMood = request is NSFetchRequest<Mood> && flag
            switch request {
            case let typed as NSFetchRequest<Mood>: print(typed)
            case is NSFetchRequest<Note>: break
            default: break
            }
            if case let typed as NSFetchRequest<Mood> = request { print(typed) }

            """
        let result = ported(source)
        let lines = result.text.split(separator: "\n").map(String.init)
        #expect(lines[1] == "let isMood = (NSFetchRequest<Mood>(fitting: request) != nil) && flag")
        #expect(lines[3] == "case let typed as NSFetchRequest<Mood>: print(typed)")
        #expect(result.diagnostics.map { "\($0.line):\($0.column)" } == ["4:6", "5:6", "8:9"])
        #expect(result.diagnostics.allSatisfy { $0.message.contains("NSFetchRequest<") && $0.message.contains("(fitting:") })
    }

    /// `NSClassFromString(entity.managedObjectClassName)` finds the entity's class
    /// through CoreData, which knows the program's classes; Foundation's on Linux knows
    /// only its own.
    @Test func classFromStringGoesThroughCoreData() {
        let source = "import CoreData\nlet cls = NSClassFromString(entity.managedObjectClassName) as? NSManagedObject.Type\n"
        let result = ported(source)
        #expect(result.text == "import CoreData\nlet cls = NSClassFromString(ported: entity.managedObjectClassName) as? NSManagedObject.Type\n")
        #expect(result.diagnostics.isEmpty)
        // Without the import, the file gets it.
        #expect(ported("let c = NSClassFromString(name)\n").text == "import CoreData\nlet c = NSClassFromString(ported: name)\n")
    }

    /// The quick filter lets every file with one of these spellings through to the parser.
    @Test func thePreFilterKnowsTheNewSpellings() {
        for text in [
            "let c: NSManagedObjectContext", "x as! NSFetchRequest<Mood>", "NSClassFromString(n)", "bundle.url(forResource: n, withExtension: ext)",
            "perform(NSSelectorFromString(\"save\"))", "let sel = #selector(save)", "Notification.Name.NSManagedObjectContextDidSave",
        ] {
            #expect(Porter.mayNeedPorting(text), "\(text)")
        }
        #expect(!Porter.mayNeedPorting("import Foundation\nstruct Point { var x = 0.0 }\n"))
    }
}
