import Foundation
import Testing

@testable import CoreDataPorter

/// Issue 46, item 5: Core Data's designated initializer, `init(entity:insertInto:)`, is
/// `required` on Linux (the runtime makes objects of a class it holds as a metatype), so
/// a subclass's `override` of it is spelled `required`, and a subclass with initializers
/// of its own must declare it. Shapes from real model layers (an override that only
/// calls super, a `private override`, a `public override` beside a designated `init()`).
@Suite struct PortInitializerTests {
    func ported(_ source: String) -> PortedSource {
        Porter.port(source: source, path: "/app/Model/File.swift", sourceLocation: false)
    }

    @Test func anOverrideOfTheDesignatedInitializerBecomesRequired() {
        let result = ported("""
            import CoreData
            final class Photo: NSManagedObject {
                override init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
                    super.init(entity: entity, insertInto: context)
                }
            }

            """)
        #expect(result.text == """
            import CoreData
            final class Photo: NSManagedObject {
                required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
                    super.init(entity: entity, insertInto: context)
                }
            }

            """)
        #expect(result.diagnostics.isEmpty)
    }

    @Test func aPrivateOverrideBecomesAnInternalOrPublicRequiredOne() {
        let internalClass = ported("""
            import CoreData
            final class App: NSManagedObject {
                @NSManaged var name: String
                private override init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?)
                {
                    super.init(entity: entity, insertInto: context)
                }
            }

            """)
        #expect(internalClass.text.contains("\n    required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?)\n    {"))
        let publicClass = ported("""
            import CoreData
            public class Attachment: NSManagedObject {
                public override init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
                    super.init(entity: entity, insertInto: context)
                }
            }

            """)
        #expect(publicClass.text.contains("\n    public required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {"))
    }

    @Test func aSubclassWithItsOwnInitializersGetsTheRequiredOne() {
        let source = """
            import CoreData
            final class Hourly: NSManagedObject { // hourly forecast
                init(context: NSManagedObjectContext, hour: Int) {
                    super.init(entity: NSEntityDescription.entity(forEntityName: "Hourly", in: context)!, insertInto: context)
                }
            }

            """
        let result = ported(source)
        let lines = result.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == source.split(separator: "\n", omittingEmptySubsequences: false).count)
        #expect(lines[1] == "final class Hourly: NSManagedObject { required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) { super.init(entity: entity, insertInto: context) }; // hourly forecast")
        #expect(lines[2] == "    init(context: NSManagedObjectContext, hour: Int) {")
    }

    @Test func subclassesThatNeedNothingAreLeftAsTheyAre() {
        for kept in [
            "import CoreData\nfinal class Note: NSManagedObject {}\n",
            "import CoreData\nfinal class Note: NSManagedObject {\n    convenience init(title: String, context: NSManagedObjectContext) {\n        self.init(context: context)\n    }\n}\n",
            "import CoreData\nfinal class Note: NSManagedObject {\n    required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {\n        super.init(entity: entity, insertInto: context)\n    }\n}\n",
            "import Foundation\nfinal class Plain: NSObject {\n    override init() {}\n}\n",
        ] {
            let result = ported(kept)
            #expect(result.text == kept)
        }
    }
}
