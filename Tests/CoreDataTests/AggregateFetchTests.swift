import CoreData
import Foundation
import Testing
import TestSupport

/// Dictionary fetches with `NSExpressionDescription` and `propertiesToGroupBy`, as Core
/// Data by Tutorials writes them: chapter 4's BubbleTeaFinder sums `specialCount` into
/// `sumDeals` (`expressionResultType = .integer32AttributeType`, read back `as? Int`), and
/// chapter 8's EmployeeDirectory counts employees per department (`count:` of
/// `department`, grouped by `department`). Core Data runs them as one SQL query
/// (`SELECT department, COUNT(department) … GROUP BY department`, cocoanetics.com,
/// "Group by, Count and Sum in CoreData", 2017), so the results follow SQL's aggregates:
/// `count:` counts non-nil values, the others skip nils, and over no rows only `count:`
/// has a value.
@Suite struct AggregateFetchTests {
    static func filledContainer() throws -> (NSPersistentContainer, TempDirectory) {
        let dir = TempDirectory("aggregate-fetch")
        let container = try NotesModel.container(in: dir)
        let context = container.viewContext
        try context.performAndWait {
            let rows: [(String?, Int16?, Float, TimeInterval)] = [("x", 1, 1.5, 100), ("x", 2, 2.5, 300), ("y", 4, 0, 200), (nil, nil, 4, 50)]
            for (title, priority, weight, created) in rows {
                let note = Note(context: context)
                note.title = title
                note.priority = priority.map { NSNumber(value: $0) }
                note.weight = weight
                note.created = Date(timeIntervalSinceReferenceDate: created)
            }
            try context.save()
        }
        return (container, dir)
    }

    static func aggregate(_ name: String, _ function: String, _ keyPath: String, _ type: NSAttributeType = .undefinedAttributeType) -> NSExpressionDescription {
        let description = NSExpressionDescription()
        description.name = name
        description.expression = NSExpression(forFunction: function, arguments: [NSExpression(forKeyPath: keyPath)])
        description.expressionResultType = type
        return description
    }

    @Test func aSumWithoutAGroupIsOneDictionaryReadAsInt() throws {
        let (container, dir) = try Self.filledContainer()
        defer { withExtendedLifetime(dir) {} }  // the store's folder lives as long as the test
        let request = NSFetchRequest<NSDictionary>(entityName: "Note")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = [Self.aggregate("sumDeals", "sum:", "priority", .integer32AttributeType)]
        let results = try container.viewContext.performAndWait { try container.viewContext.fetch(request) }
        #expect(results.count == 1)
        #expect(results.first?["sumDeals"] as? Int == 7)

        request.propertiesToFetch = [
            Self.aggregate("low", "min:", "weight"), Self.aggregate("high", "max:", "weight", .doubleAttributeType),
            Self.aggregate("mean", "average:", "priority"), Self.aggregate("titled", "count:", "title"),
            Self.aggregate("first", "min:", "created"), Self.aggregate("lastTitle", "max:", "title"),
        ]
        let all = try #require(try container.viewContext.performAndWait { try container.viewContext.fetch(request) }.first)
        #expect(all["low"] as? Double == 0 && all["high"] as? Double == 4)
        #expect(all["mean"] as? Double == 7.0 / 3.0, "the nil priority is skipped")
        #expect(all["titled"] as? Int == 3, "count: counts the non-nil titles")
        #expect(all["first"] as? Date == Date(timeIntervalSinceReferenceDate: 50))
        #expect(all["lastTitle"] as? String == "y")
    }

    @Test func countPerGroupAsEmployeeDirectoryAsksIt() throws {
        let (container, dir) = try Self.filledContainer()
        defer { withExtendedLifetime(dir) {} }  // the store's folder lives as long as the test
        let request = NSFetchRequest<NSDictionary>(entityName: "Note")
        request.propertiesToFetch = ["title", Self.aggregate("headCount", "count:", "title")]
        request.propertiesToGroupBy = ["title"]
        request.resultType = .dictionaryResultType
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let results = try container.viewContext.performAndWait { try container.viewContext.fetch(request) }
        let rows = results.map { ($0["title"] as? String, $0["headCount"] as? Int) }
        // The nil title is a group of its own whose count of titles is 0, and sorts first.
        #expect(rows.map(\.0) == [nil, "x", "y"] && rows.map(\.1) == [0, 2, 1])

        request.propertiesToFetch = ["title", Self.aggregate("total", "sum:", "weight")]
        request.predicate = NSPredicate(format: "title != nil")
        request.fetchLimit = 1
        request.fetchOffset = 1
        let page = try container.viewContext.performAndWait { try container.viewContext.fetch(request) }
        #expect(page.count == 1 && page.first?["title"] as? String == "y" && page.first?["total"] as? Double == 0, "limit and offset count groups")
    }

    @Test func overNoRowsOnlyCountHasAValue() throws {
        let (container, dir) = try Self.filledContainer()
        defer { withExtendedLifetime(dir) {} }  // the store's folder lives as long as the test
        let request = NSFetchRequest<NSDictionary>(entityName: "Note")
        request.resultType = .dictionaryResultType
        request.predicate = NSPredicate(format: "title == %@", "none such")
        request.propertiesToFetch = [Self.aggregate("sum", "sum:", "priority"), Self.aggregate("n", "count:", "priority")]
        let results = try container.viewContext.performAndWait { try container.viewContext.fetch(request) }
        #expect(results.count == 1 && results.first?["n"] as? Int == 0 && results.first?["sum"] == nil)
        request.propertiesToFetch = ["title", Self.aggregate("n", "count:", "priority")]
        request.propertiesToGroupBy = ["title"]
        #expect(try container.viewContext.performAndWait { try container.viewContext.fetch(request) }.isEmpty)
    }

    @Test func whatCannotBeComputedIsAnErrorThatSaysWhatToWrite() throws {
        let (container, dir) = try Self.filledContainer()
        defer { withExtendedLifetime(dir) {} }  // the store's folder lives as long as the test
        func message(_ configure: (NSFetchRequest<NSDictionary>) -> Void) -> String {
            let request = NSFetchRequest<NSDictionary>(entityName: "Note")
            request.resultType = .dictionaryResultType
            configure(request)
            do {
                _ = try container.viewContext.performAndWait { try container.viewContext.fetch(request) }
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        #expect(message { $0.propertiesToFetch = ["title", Self.aggregate("n", "count:", "title")] }.contains("propertiesToGroupBy does not"))
        #expect(message { $0.propertiesToFetch = [Self.aggregate("m", "median:", "weight")] }.contains("sum:, count:, min:, max:, average:"))
        #expect(message { $0.propertiesToFetch = [Self.aggregate("f", "sum:", "folder.name")] }.contains("one attribute of the entity"))
        #expect(message {
            $0.propertiesToFetch = ["title", Self.aggregate("n", "count:", "title")]
            $0.propertiesToGroupBy = ["title"]
            $0.havingPredicate = NSPredicate(format: "n > 1")
        }.contains("havingPredicate"))
    }

    /// A plain dictionary fetch whose first property is nil read the next one's value
    /// from the wrong position (the keys of the non-nil values were numbered as if they
    /// were every property).
    @Test func aNilFirstPropertyLeavesTheOthersInPlace() throws {
        let (container, dir) = try Self.filledContainer()
        defer { withExtendedLifetime(dir) {} }  // the store's folder lives as long as the test
        let request = NSFetchRequest<NSDictionary>(entityName: "Note")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["title", "priority", "weight"]
        request.predicate = NSPredicate(format: "title == nil")
        let row = try #require(try container.viewContext.performAndWait { try container.viewContext.fetch(request) }.first)
        #expect(row["title"] == nil && row["priority"] == nil)
        #expect((row["weight"] as? NSNumber)?.doubleValue == 4)
        #expect(row.count == 1)
    }
}
