import Foundation
import Testing
@testable import CoreData
@_spi(CoreData) import ManagedContext
import TestSupport

/// Malformed formats, constructs the store cannot run, `evaluate(with:)` on plain
/// values, and sort descriptors.
@Suite struct PredicateErrorAndSortTests {
    /// NSPredicate(format:) raises NSInvalidArgumentException "Unable to parse the
    /// format string" for a malformed format (NSPredicate, Apple's documentation); here
    /// the program stops at that line with the position.
    @Test func aMalformedFormatStopsAtThePredicateWithItsPosition() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = NSPredicate(format: "title == 'x' AND")
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("Unable to parse the format string \"title == 'x' AND\" at position 16"))
    }

    @Test func parseErrorsNameThePositionAndWhatWasExpected() {
        func failure(_ format: String) -> PredicateSyntaxError? {
            do throws(PredicateSyntaxError) {
                _ = try PredicateParser.parse(format)
                return nil
            } catch {
                return error
            }
        }
        #expect(failure("title == ")?.position == 9)
        #expect(failure("title == ")?.reason.contains("expected an expression") == true)
        #expect(failure("title ~ 'x'")?.position == 6)
        #expect(failure("title == 'open")?.reason.contains("not closed") == true)
        #expect(failure("(rating > 1")?.position == 11)
        #expect(failure("rating >[q] 1")?.reason.contains("'q' is not a comparison option") == true)
        #expect(failure("rating > %s")?.reason.contains("%s") == true)
        #expect(failure("title")?.reason.contains("comparison operator") == true)
        // Reserved words as keys are escaped with #.
        #expect(failure("#in == 1") == nil)
        #expect(failure("in == 1")?.position == 0)
        // Inside quotes, %@ is literal text ("Parser Basics").
        #expect(failure("title == '%@'") == nil)
    }

    /// Too few arguments for the specifiers also stops at the line.
    @Test func tooFewArgumentsStopAtThePredicate() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = NSPredicate(format: "title == %@ AND rating > %d", "x")
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(stderr.contains("has 2 format specifiers but 1 arguments were given"))
    }

    /// A well-formed construct the SQLite store cannot run makes the fetch throw,
    /// naming it (Core Data: "unsupported function expression" and the like).
    @Test func constructsTheStoreCannotRunThrowAtTheFetch() throws {
        let h = try PredicateHarness()
        func message(_ format: String, _ args: Any...) -> String {
            h.fetchError("Note", NSPredicate(format: format, argumentArray: args))?.message ?? "no error"
        }
        #expect(message("rating + 1 > 3").contains("arithmetic"))
        #expect(message("tags.@avg.weight > 1").contains("@avg"))
        #expect(message("nosuch == 1").contains("keypath nosuch not found in entity Note"))
        #expect(message("rating == 'five'").contains("compared with String"))
        #expect(message("ALL rating > 1").contains("ALL needs a key path through a to-many"))
        #expect(message("tags == nil").contains("to-many key not allowed here"))
        #expect(message("SUBQUERY(tags, $t, rating > 1).@count > 0").contains("SUBQUERY"))
        let block = NSPredicate { _, _ in true }
        #expect(h.fetchError("Note", block)?.message.contains("block predicates") == true)
    }

    /// evaluate(with:) on values that are not managed objects: strings (SELF),
    /// dictionaries and Swift structures, by key.
    @Test func evaluateWithPlainValues() {
        #expect(NSPredicate(format: "SELF BEGINSWITH[c] 'a'").evaluate(with: "Apple"))
        #expect(!NSPredicate(format: "SELF BEGINSWITH 'a'").evaluate(with: "Apple"))
        #expect(NSPredicate(format: "SELF IN %@", ["x", "y"]).evaluate(with: "y"))
        #expect(NSPredicate(format: "age > 2 AND name LIKE 'B*'").evaluate(with: ["age": 3, "name": "Bea"] as [String: Any]))
        struct Person { let name: String; let pets: [String] }
        let p = Person(name: "Ann", pets: ["cat", "dog"])
        #expect(NSPredicate(format: "pets.@count == 2 AND ANY pets == 'dog'").evaluate(with: p))
        #expect(NSPredicate(format: "name MATCHES 'A.n'").evaluate(with: p))
        #expect(!NSPredicate(format: "ALL pets BEGINSWITH 'c'").evaluate(with: p))
        #expect(NSPredicate(format: "SUBQUERY(pets, $p, $p ENDSWITH 'g').@count == 1").evaluate(with: p))
    }

    /// The parsed form is kept beside each object: two predicates of one format keep
    /// their own arguments.
    @Test func eachPredicateKeepsItsOwnArguments() {
        let a = NSPredicate(format: "SELF == %@", "a"), b = NSPredicate(format: "SELF == %@", "b")
        #expect(a.evaluate(with: "a") && !a.evaluate(with: "b"))
        #expect(b.evaluate(with: "b") && !b.evaluate(with: "a"))
        #expect(a.formatString == "SELF == %@")
        #expect(NSPredicate(value: true).formatString == nil)
    }

    // MARK: Sort descriptors

    /// NSSortDescriptor(key:ascending:): SQL and in-memory orders agree.
    @Test func sortByKeyInStoreAndMemory() throws {
        let h = try PredicateHarness()
        let all = NSPredicate(value: true)
        for context in [h.saved, h.memory] {
            #expect(try h.fetch("Note", all, in: context, sorts: [NSSortDescriptor(key: "rating", ascending: false)]) == ["n1", "n5", "n2", "n3", "n4"])
            // Byte order: upper case before lower case, nil first.
            #expect(try h.fetch("Note", all, in: context, sorts: [NSSortDescriptor(key: "title", ascending: true)]) == ["n5", "n1", "n3", "n2", "n4"])
            #expect(try h.fetch("Note", all, in: context, sorts: [NSSortDescriptor(key: "done", ascending: true), NSSortDescriptor(key: "created", ascending: false)]) == ["n5", "n3", "n2", "n1", "n4"])
        }
    }

    /// (key:ascending:selector:) with caseInsensitiveCompare: and
    /// localizedStandardCompare: ("Sort Descriptor Programming Topics").
    @Test func sortSelectors() throws {
        let h = try PredicateHarness()
        let all = NSPredicate(value: true)
        for context in [h.saved, h.memory] {
            let folded = NSSortDescriptor(key: "title", ascending: true, selector: Selector("caseInsensitiveCompare:"))
            #expect(try h.fetch("Note", all, in: context, sorts: [folded]) == ["n5", "n1", "n2", "n4", "n3"])
            let standard = NSSortDescriptor(key: "title", ascending: false, selector: "localizedStandardCompare:")
            #expect(try h.fetch("Note", all, in: context, sorts: [standard]) == ["n3", "n4", "n2", "n1", "n5"])
        }
    }

    /// localizedStandardCompare: orders numbers in strings by value ("Finder-like").
    @Test func localizedStandardCompareOrdersNumbersByValue() throws {
        let dir = TempDirectory("pred-sort")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: predicateModel)
        try coordinator.addPersistentStore(at: dir.file("S.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let h = try PredicateHarness()
        try context.performAndWait {
            for (i, name) in ["file10", "File9", "file1"].enumerated() {
                let f = PFolder(context: context)
                f.key = "k\(i)"
                f.name = name
            }
            let by = [NSSortDescriptor(key: "name", ascending: true, selector: "localizedStandardCompare:")]
            let unsaved = try h.fetch("Folder", NSPredicate(value: true), in: context, sorts: by)
            try context.save()
            context.reset()
            let saved = try h.fetch("Folder", NSPredicate(value: true), in: context, sorts: by)
            #expect(unsaved == ["k2", "k1", "k0"])
            #expect(saved == unsaved)
        }
    }

    /// NSSortDescriptor(keyPath:ascending:) sorts by the attribute the key path reads.
    @Test func sortByKeyPath() throws {
        let h = try PredicateHarness()
        let note = predicateModel.entity(named: "Note")!
        let byRating = try PredicateTranslation.sortDescriptors([NSSortDescriptor(keyPath: \PNote.rating, ascending: true)], entity: note)
        #expect(byRating.count == 1)
        #expect(try h.fetch("Note", NSPredicate(value: true), in: h.saved, sorts: [NSSortDescriptor(keyPath: \PNote.rating, ascending: true)]) == ["n4", "n3", "n2", "n5", "n1"])
        #expect(try h.fetch("Note", NSPredicate(value: true), in: h.memory, sorts: [NSSortDescriptor(keyPath: \PNote.title, ascending: false)]) == ["n4", "n2", "n3", "n1", "n5"])
        #expect(NSSortDescriptor(key: "title", ascending: true).key == "title")
    }

    @Test func sortErrorsSayWhatToSortBy() throws {
        let note = predicateModel.entity(named: "Note")!
        func message(_ d: NSSortDescriptor) -> String {
            do {
                _ = try PredicateTranslation.sortDescriptors([d], entity: note)
                return "no error"
            } catch {
                return error.message
            }
        }
        #expect(message(NSSortDescriptor(key: "nosuch", ascending: true)).contains("is not an attribute of Note"))
        #expect(message(NSSortDescriptor(key: "tags", ascending: true)).contains("is a relationship"))
        #expect(message(NSSortDescriptor(key: "title", ascending: true, selector: "localizedCompare:")).contains("localizedCompare:"))
        #expect(message(NSSortDescriptor(key: "folder.name", ascending: true)).contains("goes through a relationship"))
    }
}
