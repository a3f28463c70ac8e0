import Foundation
import Testing

@testable import CoreDataPorter

/// Each rewrite of `ctxdebug port` on sources in the Xcode-era style (our own fixtures,
/// Tests/PortConsumer/App and Fixtures/), compared whole, and the lines they keep.
@Suite struct PortRewriterTests {
    /// The rewritten body alone (no #sourceLocation lines).
    func ported(_ source: String, relationships: [String: [String]] = [:]) -> PortedSource {
        Porter.port(source: source, path: "/app/Model/File.swift", relationships: relationships, sourceLocation: false)
    }

    @Test func aFileWithNothingToPortComesOutByteForByte() {
        let source = """
            import CoreData
            // @objc and #keyPath in a comment, and "dynamic" in a string, are not code to port.
            final class Exporter {
                let label = "dynamic @objc"
                func run(_ context: NSManagedObjectContext) {   \t
                    context.perform { }
                }
            }
            """
        let result = ported(source)
        #expect(result.text == source)
        #expect(!result.changed)
        #expect(result.diagnostics.isEmpty)
        // With its header, the body is still the same bytes between the two directives.
        let full = Porter.port(source: source, path: "/app/Model/Exporter.swift")
        #expect(full.text == "#sourceLocation(file: \"/app/Model/Exporter.swift\", line: 1)\n" + source + "\n#sourceLocation()\n")
    }

    @Test func managedPropertiesBecomeAccessorsOnTheirOwnLines() {
        let source = """
            @objc(Note)
            public class Note: NSManagedObject {
                @NSManaged public var title: String?
                @NSManaged var rating: Int16  // 0 to 5
                @NSManaged
                public dynamic var tags: Set<Tag>
                @NSManaged var `class`: String?
            }
            """
        // The file names NSManagedObject without importing CoreData: the copy imports it.
        let expected = """
            import CoreData

            public class Note: NSManagedObject {
                public var title: String? { get { managedValue(forKey: "title") } set { setManagedValue(newValue, forKey: "title") } }
                var rating: Int16 { get { managedValue(forKey: "rating") } set { setManagedValue(newValue, forKey: "rating") } }  // 0 to 5

                public var tags: Set<Tag> { get { managedValue(forKey: "tags") } set { setManagedValue(newValue, forKey: "tags") } }
                var `class`: String? { get { managedValue(forKey: "class") } set { setManagedValue(newValue, forKey: "class") } }
            }
            """
        let result = ported(source)
        #expect(result.text == expected)
        #expect(result.changed)
        #expect(result.diagnostics.isEmpty)
    }

    @Test func xcodesToManyAccessorsGetBodies() {
        let source = """
            extension Folder {
                @objc(addNotesObject:)
                @NSManaged public func addToNotes(_ value: Note)
                @NSManaged public func removeFromNotes(_ value: Note)
                @NSManaged public func addToNotes(_ values: NSSet)
                @NSManaged public func removeFromNotes(_ values: NSSet)
                @NSManaged public func insertIntoURLs(_ value: Link, at idx: Int)
                @NSManaged public func removeFromURLs(at idx: Int)
                @NSManaged public func insertIntoURLs(_ values: [Link], at indexes: NSIndexSet)
                @NSManaged public func removeFromURLs(at indexes: NSIndexSet)
                @NSManaged public func replaceURLs(at idx: Int, with value: Link)
                @NSManaged public func replaceURLs(at indexes: NSIndexSet, with values: [Link])
                @NSManaged public func addToURLs(_ values: NSOrderedSet)
                @NSManaged public func removeFromURLs(_ values: NSOrderedSet)
            }
            """
        // The model spells the ordered relationship `URLs`: the key follows it, not `uRLs`.
        let lines = ported(source, relationships: ["Folder": ["notes", "URLs"]]).text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 15)
        #expect(lines[1].isEmpty)
        #expect(lines[2] == "    public func addToNotes(_ value: Note) { mutableSetValue(forKey: \"notes\").add(value) }")
        #expect(lines[3] == "    public func removeFromNotes(_ value: Note) { mutableSetValue(forKey: \"notes\").remove(value) }")
        #expect(lines[4] == "    public func addToNotes(_ values: NSSet) { mutableSetValue(forKey: \"notes\").addObjects(from: values.allObjects) }")
        #expect(lines[5] == "    public func removeFromNotes(_ values: NSSet) { let set = mutableSetValue(forKey: \"notes\"); for member in values { set.remove(member) } }")
        #expect(lines[6] == "    public func insertIntoURLs(_ value: Link, at idx: Int) { mutableOrderedSetValue(forKey: \"URLs\").insert(value, at: idx) }")
        #expect(lines[7] == "    public func removeFromURLs(at idx: Int) { mutableOrderedSetValue(forKey: \"URLs\").removeObject(at: idx) }")
        #expect(lines[8] == "    public func insertIntoURLs(_ values: [Link], at indexes: NSIndexSet) { mutableOrderedSetValue(forKey: \"URLs\").insert(values, at: IndexSet(indexes)) }")
        #expect(lines[9] == "    public func removeFromURLs(at indexes: NSIndexSet) { mutableOrderedSetValue(forKey: \"URLs\").removeObjects(at: IndexSet(indexes)) }")
        #expect(lines[10] == "    public func replaceURLs(at idx: Int, with value: Link) { mutableOrderedSetValue(forKey: \"URLs\").replaceObject(at: idx, with: value) }")
        #expect(lines[11] == "    public func replaceURLs(at indexes: NSIndexSet, with values: [Link]) { mutableOrderedSetValue(forKey: \"URLs\").replaceObjects(at: IndexSet(indexes), with: values) }")
        #expect(lines[12] == "    public func addToURLs(_ values: NSOrderedSet) { mutableOrderedSetValue(forKey: \"URLs\").union(values) }")
        #expect(lines[13] == "    public func removeFromURLs(_ values: NSOrderedSet) { mutableOrderedSetValue(forKey: \"URLs\").minus(values) }")
        // Without a model, the key is the name with its first letter lowered, as Xcode capitalizes it.
        #expect(ported("@NSManaged func addToNotes(_ n: Note)").text == "func addToNotes(_ n: Note) { mutableSetValue(forKey: \"notes\").add(n) }")
    }

    @Test func objcAttributesAndDynamicAreRemovedKeepingComments() {
        let source = """
            @objcMembers /* all of them */ final class Settings: NSObject {
                @objc dynamic var volume = 0.5
                @objc(resetAll) @discardableResult func reset() -> Bool { true }
                @nonobjc func kept() {}
            }
            """
        // An @objc property gets its key-value accessor (PortKeyValueAccessorTests), so the file imports CoreData.
        let expected = """
            import CoreData
            /* all of them */ final class Settings: NSObject {
                var volume = 0.5; enum __PortedKey_volume: PortedKeyValueAccessor { static func portedValue(of object: Any) -> Any? { (object as! Settings).volume as Any? } }
                @discardableResult func reset() -> Bool { true }
                @nonobjc func kept() {}
            }
            """
        #expect(ported(source).text == expected)
    }

    @Test func keyPathsBecomeStrings() {
        let source = #"""
            let a = #keyPath(Note.folder.name)
            let b = [NSSortDescriptor(key: #keyPath(Note.created), ascending: false)]
            let c = #keyPath(title)
            """#
        let expected = #"""
            let a = "folder.name"
            let b = [NSSortDescriptor(key: "created", ascending: false)]
            let c = "title"
            """#
        #expect(ported(source).text == expected)
    }

    @Test func selectorObserversBecomeBlockObserversOnTheSameLines() {
        let source = """
            import Foundation
            final class Stack {
                init() {
                    NotificationCenter.default.addObserver(
                        self,
                        selector: #selector(didSave(_:)),
                        name: NSManagedObjectContext.didSaveObjectsNotification,
                        object: nil)
                    center.addObserver(self, selector: #selector(reload), name: .reload, object: nil)
                    center.addObserver(self, selector: #selector(Stack.handle(notification:)), name: .other, object: self)
                }
                deinit { NotificationCenter.default.removeObserver(self) }
                func stop() { center.removeObserver(self, name: .reload, object: nil) }
                func didSave(_ note: Notification) {}
                func reload() {}
                func handle(notification: Notification) {}
            }
            """
        let result = ported(source)
        // The file does not import CoreData, where the ported observer lives: the header adds it.
        var lines = result.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "import CoreData")
        lines.removeFirst()
        #expect(lines.count == 17)
        #expect(lines[0] == "import Foundation")
        #expect(lines[5].isEmpty)
        #expect(lines[7] == "            object: nil) { observer, note in observer.didSave(note) }")
        #expect(lines[8] == "        center.addObserver(self, name: .reload, object: nil) { observer, note in observer.reload() }")
        #expect(lines[9] == "        center.addObserver(self, name: .other, object: self) { observer, note in observer.handle(notification: note) }")
        #expect(lines[11] == "    deinit { NotificationCenter.default.removeObserver(ported: self) }")
        #expect(lines[12] == "    func stop() { center.removeObserver(ported: self, name: .reload, object: nil) }")
        #expect(result.diagnostics.isEmpty)
        #expect(Porter.port(source: source, path: "/s.swift").text.hasPrefix("import CoreData\n#sourceLocation(file: \"/s.swift\", line: 1)\n"))
    }

    @Test func aSelectorWhoseArityIsUnknownIsReported() {
        let source = "center.addObserver(self, selector: #selector(elsewhere), name: .x, object: nil)\n"
        let result = ported(source)
        #expect(result.diagnostics.map { "\($0.line):\($0.column)" } == ["1:36"])
        #expect(result.diagnostics.first?.message.contains("#selector(elsewhere(_:))") == true)
    }

    @Test func networkingGetsFoundationNetworking() {
        let source = "import Foundation\nlet session = URLSession.shared\n"
        let text = Porter.port(source: source, path: "/n.swift").text
        #expect(text == "#if canImport(FoundationNetworking)\nimport FoundationNetworking\n#endif\n#sourceLocation(file: \"/n.swift\", line: 1)\n" + source + "#sourceLocation()\n")
        // Not twice.
        let already = "import FoundationNetworking\nlet r: URLRequest? = nil\n"
        #expect(Porter.port(source: already, path: "/n.swift").text.hasPrefix("#sourceLocation"))
    }

    /// Xcode's templates import UIKit (or Cocoa) in model files and unit tests that use
    /// none of it; CampgroundManager's CampSiteServiceTests and CamperServiceTests (Core
    /// Data by Tutorials, chapter 7) do. Linux has no UIKit, so the import moves above
    /// `#sourceLocation`, behind `canImport`, with what it brought that Linux has (UIKit
    /// and AppKit bring Foundation; Cocoa brings Foundation and CoreData). The file's
    /// lines stay where they were, and a UIKit type it does use is a compiler error at
    /// its own line.
    @Test func appleOnlyFrameworkImportsAreGuarded() {
        let source = "import UIKit\nimport XCTest\n@testable import Notes // the app\n\nfinal class T: XCTestCase {}\n"
        let text = Porter.port(source: source, path: "/t.swift").text
        #expect(text == """
            #if canImport(UIKit)
            import UIKit
            #else
            import Foundation
            #endif
            #sourceLocation(file: "/t.swift", line: 1)

            import XCTest
            @testable import Notes // the app

            final class T: XCTestCase {}
            #sourceLocation()

            """)
        let cocoa = Porter.port(source: "import Cocoa\nimport Dispatch // queues\nlet c: NSManagedObjectContext? = nil\n", path: "/c.swift")
        #expect(cocoa.changed)
        #expect(cocoa.text == """
            #if canImport(Cocoa)
            import Cocoa
            #else
            import CoreData
            #endif
            #sourceLocation(file: "/c.swift", line: 1)

            import Dispatch // queues
            let c: NSManagedObjectContext? = nil
            #sourceLocation()

            """)
        // Already guarded, or only inside a type's name: left as it is.
        let guarded = "#if canImport(UIKit)\nimport UIKit\n#endif\nlet kit = \"import UIKit\"\n"
        #expect(ported(guarded).text == guarded && !ported(guarded).changed)
        // With the other rewrites in the same file.
        let both = ported("import UIKit\nimport CoreData\n@objc(Note) class Note: NSManagedObject {}\n")
        #expect(both.text == "#if canImport(UIKit)\nimport UIKit\n#else\nimport Foundation\n#endif\n\nimport CoreData\nclass Note: NSManagedObject {}\n")
    }

    /// The compiled model's URL (CampgroundManager's CoreDataStack:
    /// `Bundle.main.url(forResource: modelName, withExtension: "momd")!`) becomes
    /// CoreData's lookup of the Xcode model, on the same line; another resource of the main
    /// bundle the lookup that also searches the program's SwiftPM resource bundles; another
    /// bundle's resource is left as it is.
    @Test func theCompiledModelsURLBecomesTheModelLookup() {
        let source = """
            import Foundation
            let modelURL = Bundle.main.url(forResource: modelName, withExtension: "momd")!
            let path = Bundle(for: Stack.self).path(forResource: "Model", ofType: "mom")
            let seed = Bundle.main.url(forResource: "seed", withExtension: "json")!
            let other = bundle.url(forResource: "Model", withExtension: ext)

            """
        let result = Porter.port(source: source, path: "/s.swift")
        #expect(result.changed)
        #expect(result.text == """
            import CoreData
            #sourceLocation(file: "/s.swift", line: 1)
            import Foundation
            let modelURL = Bundle.main.url(forModelResource: modelName, withExtension: "momd")!
            let path = Bundle(portedFor: Stack.self).path(forModelResource: "Model", ofType: "mom")
            let seed = Bundle.main.url(forPortedResource: "seed", withExtension: "json")!
            let other = bundle.url(forResource: "Model", withExtension: ext)
            #sourceLocation()

            """)
    }

    @Test func whatCannotBePortedIsReportedAtItsLineWithAFix() throws {
        let path = CoreDataPorterTests.fixtures.appendingPathComponent("Unportable.swift").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let result = Porter.port(source: text, path: "Unportable.swift")
        #expect(result.diagnostics.map { "\($0.line):\($0.column)" } == ["7:23", "8:9", "12:10", "16:13", "17:9"])
        let messages = result.diagnostics.map(\.message)
        #expect(messages[0].contains("key-value observing") && messages[0].contains("NSManagedObjectContextObjectsDidChange"))
        #expect(messages[1].contains("forKeyPath"))
        #expect(messages[2].contains("@sum"))
        #expect(messages[3].contains("#selector"))
        #expect(messages[4].contains("NSSelectorFromString") && messages[4].contains("literal"))
        #expect(result.diagnostics[0].description.hasPrefix("Unportable.swift:7:23: error: "))
    }

    @Test func everyPortedFileKeepsTheOriginalsLines() throws {
        let app = CoreDataPorterTests.consumerApp.appendingPathComponent("Model")
        for name in try FileManager.default.contentsOfDirectory(atPath: app.path) where name.hasSuffix(".swift") {
            let path = app.appendingPathComponent(name).path
            let original = try String(contentsOfFile: path, encoding: .utf8)
            let result = Porter.port(source: original, path: path, relationships: ["Folder": ["notes"]])
            #expect(result.diagnostics.isEmpty, "\(name): \(result.diagnostics)")
            #expect(result.changed, "\(name) has Xcode-era code to port")
            var lines = result.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let start = try #require(lines.firstIndex(of: "#sourceLocation(file: \"\(path)\", line: 1)"))
            lines = Array(lines[(start + 1)...])
            #expect(lines.suffix(2) == ["#sourceLocation()", ""])
            let body = lines.dropLast(2)
            let originalLines = original.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast()
            #expect(body.count == originalLines.count, "\(name): \(body.count) lines for the original's \(originalLines.count)")
            // Lines without anything to port are the same text at the same line.
            // (An @objc property's last line gets its key-value accessor after it.)
            for (b, o) in zip(body, originalLines) where !["@", "#", "dynamic", "Observer", "selector", "object:", "override init(entity:"].contains(where: o.contains) && !b.contains("__PortedKey_") {
                #expect(b == o, "\(name)")
            }
        }
    }
}

enum CoreDataPorterTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let consumerApp = packageRoot.appendingPathComponent("Tests/PortConsumer/App")
}
