import Foundation
import Testing

@testable import CoreDataPorter

/// Key-value coding of `@objc` properties outside the model (bignerdranch/CoreDataStack's
/// `Book.firstInitial`, an `NSFetchedResultsController`'s `sectionNameKeyPath`): the port
/// writes, on the property's last line, the accessor enum CoreData's `value(forKey:)`
/// finds (CoreData's PortedKeyValueAccessor.swift; CoreDataTests' PortedKeyValueTests
/// runs the same shape).
@Suite struct PortKeyValueAccessorTests {
    func ported(_ source: String) -> PortedSource {
        Porter.port(source: source, path: "/app/Model/File.swift", sourceLocation: false)
    }

    @Test func aComputedPropertyOfAnExtensionGetsAGetter() {
        let result = ported("""
            import Foundation

            extension Book {
                @objc
                var firstInitial: String? {
                    return title.map { String($0.prefix(1)) }
                } // the section name
                func other() {}
            }

            """)
        #expect(result.text == """
            import CoreData
            import Foundation

            extension Book {

                var firstInitial: String? {
                    return title.map { String($0.prefix(1)) }
                }; enum __PortedKey_firstInitial: PortedKeyValueAccessor { static func portedValue(of object: Any) -> Any? { (object as! Book).firstInitial as Any? } } // the section name
                func other() {}
            }

            """)
    }

    @Test func aSettablePropertyGetsASetterSpelledByItsType() {
        let result = ported("""
            class Outer {
                final class Note: NSManagedObject {
                    @objc var cached: String! = nil
                    @objc dynamic var edited: Date { get { Date() } set { } }
                    @objc var readOnly: Int { 3 }
                    @objc let fixed = 1
                }
            }

            """)
        let lines = result.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 10 && lines[0] == "import CoreData", "each edit stays on its line, after the import the port adds")
        #expect(lines[3].contains("enum __PortedKey_cached: PortedKeyValueAccessor") && lines[3].contains("(object as! Outer.Note).cached = value as! String?; return true"))
        #expect(lines[4].contains("(object as! Outer.Note).edited = value as! Date; return true"))
        #expect(lines[5].contains("__PortedKey_readOnly") && !lines[5].contains("setPortedValue"))
        #expect(lines[6].contains("__PortedKey_fixed") && !lines[6].contains("setPortedValue"))
    }

    @Test func propertiesThePortCannotGiveAnAccessorAreLeftAsTheyAre() {
        let source = """
            class Box<T>: NSObject { @objc var value: Int { 1 } }
            extension Array where Element == Int { var total: Int { 0 } }
            class Plain: NSObject {
                var notObjC: Int { 1 }
                @objc static var shared: Int { 1 }
                @objc var throwing: Int { get throws { 1 } }
                @NSManaged var title: String?
            }
            @MainActor final class Screen: NSObject { @objc var visible: Bool { true } }
            struct Wrapper<T> { final class Inner: NSObject { @objc var nested: Int { 1 } } }
            func make() { final class Local: NSObject { @objc var local: Int { 1 } } }

            """
        #expect(!ported(source).text.contains("__PortedKey_"))
    }
}
