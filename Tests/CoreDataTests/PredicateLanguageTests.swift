import Foundation
import Testing
@testable import CoreData
@_spi(CoreData) import ManagedContext
import TestSupport

// Each construct of Core Data's predicate language, run three ways on one data set:
// as SQL against a saved SQLite store, in memory over a context's unsaved inserts, and
// by `evaluate(with:)` on each object; the three must agree (PredicateHarness).
//
// "Predicate Format String Syntax" below is Apple's Predicate Programming Guide,
// https://developer.apple.com/library/archive/documentation/Cocoa/Conceptual/Predicates/Articles/pSyntax.html

@Suite struct PredicateLanguageTests {
    let h: PredicateHarness
    init() throws { h = try PredicateHarness() }

    /// "Basic Comparisons": =, ==; >=, =>; <=, =<; >; <; !=, <>.
    @Test func basicComparisonsAndTheirSpellings() throws {
        #expect(try h.keys("rating == 3") == ["n2"])
        #expect(try h.keys("rating = 3") == ["n2"])
        // nil != 3 holds: n4 has no rating.
        #expect(try h.keys("rating != 3") == ["n1", "n3", "n4", "n5"])
        #expect(try h.keys("rating <> 3") == ["n1", "n3", "n4", "n5"])
        #expect(try h.keys("rating < 3") == ["n3"])
        #expect(try h.keys("rating <= 3") == ["n2", "n3"])
        #expect(try h.keys("rating =< 3") == ["n2", "n3"])
        #expect(try h.keys("rating > 3") == ["n1", "n5"])
        #expect(try h.keys("rating >= 4") == ["n1", "n5"])
        #expect(try h.keys("rating => 4") == ["n1", "n5"])
        // A constant on the left compares the same way round.
        #expect(try h.keys("3 < rating") == ["n1", "n5"])
    }

    /// "Parser Basics": printf-style format specifiers; %@ is an object value.
    @Test func formatSpecifiersTakeSwiftValues() throws {
        #expect(try h.keys("rating > %d", 3) == ["n1", "n5"])
        #expect(try h.keys("rating > %i", Int32(3)) == ["n1", "n5"])
        #expect(try h.keys("rating > %ld", 3) == ["n1", "n5"])
        #expect(try h.keys("rating > %lld", Int64(3)) == ["n1", "n5"])
        #expect(try h.keys("rating > %u", UInt(3)) == ["n1", "n5"])
        #expect(try h.keys("score > %f", 2.0) == ["n1", "n4"])
        #expect(try h.keys("score > %lf", 4.5) == ["n4"])
        #expect(try h.keys("rating == %@", NSNumber(value: 5)) == ["n1"])
        #expect(try h.keys("title == %@", "Gamma") == ["n3"])
        #expect(try h.keys("created < %@", day1) == ["n1"])
        #expect(try h.keys("created >= %@", day1) == ["n2", "n3", "n5"])
        #expect(try h.keys("done == %@", false) == ["n2", "n3"])
        #expect(try h.keys("title == %@", Optional<String>.none as Any) == ["n5"])
    }

    /// "Literals": TRUE/YES, FALSE/NO, NULL/NIL.
    @Test func booleanAndNilLiterals() throws {
        #expect(try h.keys("done == YES") == ["n1", "n4"])
        #expect(try h.keys("done == TRUE") == ["n1", "n4"])
        #expect(try h.keys("done == NO") == ["n2", "n3"])
        #expect(try h.keys("title == nil") == ["n5"])
        #expect(try h.keys("title != NULL") == ["n1", "n2", "n3", "n4"])
        #expect(try h.keys("rating == NIL") == ["n4"])
        #expect(try h.keys("folder == nil") == ["n5"])
        #expect(try h.keys("folder != nil") == ["n1", "n2", "n3", "n4"])
    }

    /// "Basic Comparisons": BETWEEN, "between or equal to either of the values".
    @Test func between() throws {
        #expect(try h.keys("rating BETWEEN {2, 4}") == ["n2", "n5"])
        #expect(try h.keys("rating BETWEEN %@", [1, 3]) == ["n2", "n3"])
        #expect(try h.keys("created BETWEEN %@", [day0, day1]) == ["n1", "n2", "n5"])
        #expect(try h.keys("title BETWEEN[c] {'alpha', 'beta zzz'}") == ["n1", "n2"])
    }

    /// "String Comparisons"/"Aggregate Operations": IN, with aggregates, arrays and sets.
    @Test func inWithAggregatesArraysAndSets() throws {
        #expect(try h.keys("rating IN {1, 5}") == ["n1", "n3"])
        #expect(try h.keys("title IN %@", ["Gamma", "nothing"]) == ["n3"])
        #expect(try h.keys("key IN %@", Set(["n2", "n4"])) == ["n2", "n4"])
        #expect(try h.keys("title IN[c] %@", ["gamma", "ALPHA REPORT"]) == ["n1", "n3"])
        #expect(try h.keys("rating IN %@", [Int]()) == [])
    }

    /// "String Comparisons": BEGINSWITH, ENDSWITH, CONTAINS, "case and diacritic
    /// insensitive lookups … [cd]".
    @Test func stringOperatorsAndTheirOptions() throws {
        #expect(try h.keys("title BEGINSWITH 'Alpha'") == ["n1"])
        #expect(try h.keys("title BEGINSWITH 'alpha'") == [])
        #expect(try h.keys("title BEGINSWITH[c] 'alpha'") == ["n1"])
        #expect(try h.keys("title ENDSWITH 'café'") == ["n4"])
        #expect(try h.keys("title ENDSWITH 'cafe'") == [])
        #expect(try h.keys("title ENDSWITH[d] 'cafe'") == ["n4"])
        #expect(try h.keys("title CONTAINS 'eta'") == ["n2"])
        #expect(try h.keys("title CONTAINS[c] 'NOTES'") == ["n2"])
        #expect(try h.keys("body CONTAINS[cd] 'RESUME'") == ["n2"])
        #expect(try h.keys("body contains[cd] %@", "résumé") == ["n2"])
        #expect(try h.keys("title ==[c] 'GAMMA'") == ["n3"])
        #expect(try h.keys("title ==[cd] 'DELTA CAFE'") == ["n4"])
        #expect(try h.keys("title !=[c] 'gamma'") == ["n1", "n2", "n4", "n5"])
    }

    /// "String Comparisons": LIKE, "? and * are allowed as wildcard characters".
    @Test func likeWithWildcards() throws {
        #expect(try h.keys("title LIKE 'Gam*'") == ["n3"])
        #expect(try h.keys("title LIKE '?amma'") == ["n3"])
        #expect(try h.keys("title LIKE 'gam*'") == [])
        #expect(try h.keys("title LIKE[c] '*NOTES'") == ["n2"])
        #expect(try h.keys("title LIKE[cd] '*CAFE'") == ["n4"])
        #expect(try h.keys("body LIKE '100%% done'") == ["n4"])
        #expect(try h.keys("title LIKE %@", "*a*") == ["n1", "n2", "n3", "n4"])
    }

    /// "String Comparisons": MATCHES, "a regular expression … (ICU v3)"; the whole
    /// string must match.
    @Test func matchesARegularExpression() throws {
        #expect(try h.keys("title MATCHES '[A-Z][a-z]+'") == ["n3"])
        #expect(try h.keys("title MATCHES[c] 'BETA.*'") == ["n2"])
        #expect(try h.keys("key MATCHES %@", "n[1-3]") == ["n1", "n2", "n3"])
    }

    /// "Compound Predicates": AND/&&, OR/||, NOT/!; AND binds tighter than OR.
    @Test func compoundsAndPrecedence() throws {
        #expect(try h.keys("rating > 2 AND done == YES") == ["n1"])
        #expect(try h.keys("rating > 2 && done == YES") == ["n1"])
        #expect(try h.keys("rating == 1 OR title == nil") == ["n3", "n5"])
        #expect(try h.keys("rating == 1 || title == nil") == ["n3", "n5"])
        // n4 has no rating: NOT of a false comparison holds.
        #expect(try h.keys("NOT (rating > 2)") == ["n3", "n4"])
        #expect(try h.keys("!(done == YES)") == ["n2", "n3", "n5"])
        #expect(try h.keys("rating == 1 OR rating == 3 AND done == NO") == ["n2", "n3"])
        #expect(try h.keys("(rating == 1 OR rating == 3) AND done == NO") == ["n2", "n3"])
        // "case insensitive with respect to keywords".
        #expect(try h.keys("rating > 2 and done == yes") == ["n1"])
    }

    /// "Basic Comparisons" and "Literals": TRUEPREDICATE, FALSEPREDICATE.
    @Test func truePredicateAndFalsePredicate() throws {
        #expect(try h.keys("TRUEPREDICATE") == ["n1", "n2", "n3", "n4", "n5"])
        #expect(try h.keys("FALSEPREDICATE") == [])
        #expect(try h.keys("TRUEPREDICATE AND rating == 3") == ["n2"])
    }

    /// "Parser Basics": %K is a var arg substitution for a key path.
    @Test func keyPathArguments() throws {
        #expect(try h.keys("%K == %@", "title", "Gamma") == ["n3"])
        #expect(try h.keys("%K.name == %@", "folder", "Home") == ["n3"])
        #expect(try h.keys("%K == %@", "folder.name", "Work") == ["n1", "n2"])
    }

    /// Key paths through to-one relationships ("Using Predicates with Key-Paths").
    @Test func keyPathsThroughToOneRelationships() throws {
        #expect(try h.keys("folder.name == 'Work'") == ["n1", "n2"])
        #expect(try h.keys("folder.name BEGINSWITH[cd] 'cafe'") == ["n4"])
        // n5 has no folder: its folder's name is nil, which is not 'Work'.
        #expect(try h.keys("folder.name != 'Work'") == ["n3", "n4", "n5"])
        #expect(try h.keys("folder.name == nil") == ["n5"])
        #expect(try h.keys("Tag", NSPredicate(format: "note.folder.name == %@", "Work")) == ["t1", "t2", "t3"])
        // Two key paths compared; n5 has no folder, so its folder's notes count none.
        #expect(try h.keys("Tag", NSPredicate(format: "note.rating > note.folder.notes.@count")) == ["t1", "t2", "t3", "t7"])
    }

    /// "Aggregate Operations": ANY/SOME, ALL, NONE.
    @Test func anyAllNoneSome() throws {
        #expect(try h.keys("ANY tags.label == 'urgent'") == ["n1", "n4"])
        #expect(try h.keys("SOME tags.label == 'draft'") == ["n2", "n4"])
        // ALL holds for a note without tags (n3), as Core Data's NOT EXISTS does.
        #expect(try h.keys("ALL tags.weight > 0") == ["n1", "n2", "n3", "n5"])
        #expect(try h.keys("NONE tags.label == 'urgent'") == ["n2", "n3", "n5"])
        #expect(try h.keys("ANY tags.label IN {'misc', 'q1'}") == ["n1", "n4", "n5"])
        #expect(try h.keys("ANY tags.label BEGINSWITH[c] 'UR'") == ["n1", "n4"])
        // A to-many key path without a quantifier is ANY.
        #expect(try h.keys("tags.label == 'q1'") == ["n1", "n5"])
        #expect(try h.keys("Folder", NSPredicate(format: "ANY notes.rating >= 5")) == ["f1"])
        // Through two to-many relationships.
        #expect(try h.keys("Folder", NSPredicate(format: "ANY notes.tags.label == 'misc'")) == ["f3"])
    }

    /// "Collection queries": @count of a to-many relationship.
    @Test func countOfAToManyRelationship() throws {
        #expect(try h.keys("tags.@count == 0") == ["n3"])
        #expect(try h.keys("tags.@count > 1") == ["n1", "n4"])
        #expect(try h.keys("tags.@count BETWEEN {1, 2}") == ["n1", "n2", "n5"])
        #expect(try h.keys("Folder", NSPredicate(format: "notes.@count == %d", 2)) == ["f1"])
        #expect(try h.keys("Folder", NSPredicate(format: "notes.@count == 0")) == ["f4"])
        #expect(try h.keys("Tag", NSPredicate(format: "note.tags.@count == 3")) == ["t4", "t5", "t6"])
    }

    /// NSExpression's SUBQUERY(collection, variable, predicate), counted with @count.
    @Test func subqueryCounted() throws {
        #expect(try h.keys("SUBQUERY(tags, $t, $t.label == 'urgent' AND $t.weight > 4).@count > 0") == ["n4"])
        #expect(try h.keys("SUBQUERY(tags, $t, $t.weight >= 1).@count == 2") == ["n1", "n4"])
        #expect(try h.keys("Folder", NSPredicate(format: "SUBQUERY(notes, $n, $n.done == YES).@count == 1")) == ["f1", "f3"])
    }

    /// "Creating Predicates Using Predicate Templates": $VARIABLE and
    /// withSubstitutionVariables(_:).
    @Test func substitutionVariables() throws {
        let template = NSPredicate(format: "rating > $MIN AND title != $NAME")
        #expect(try h.keys("Note", template.withSubstitutionVariables(["MIN": 3, "NAME": "Alpha report"])) == ["n5"])
        // evaluate(with:substitutionVariables:) binds them in memory.
        let matched = try h.memory.performAndWait { () throws -> [String] in
            var request = FetchRequest<ManagedObject>()
            request.entity = predicateModel.entity(named: "Note")
            return try h.memory.fetch(request).filter { template.evaluate(with: $0, substitutionVariables: ["MIN": 3, "NAME": "x"]) }
                .map { $0.value(forKey: "key") as! String }.sorted()
        }
        #expect(matched == ["n1", "n5"])
        // A variable left unbound is a fetch error that names it.
        let error = try #require(h.fetchError("Note", template))
        #expect(error.message.contains("$MIN"))
        #expect(error.message.contains("withSubstitutionVariables"))
    }

    /// Managed objects and their IDs are %@ values ("Using Predicates with Core Data":
    /// "you can use … the managed object or its ID").
    @Test func managedObjectsAndObjectIDsAsArguments() throws {
        for context in [h.saved, h.memory] {
            try context.performAndWait {
                func object(_ entity: String, _ key: String) throws -> ManagedObject {
                    var request = FetchRequest<ManagedObject>()
                    request.entity = predicateModel.entity(named: entity)
                    return try #require(try context.fetch(request).first { $0.value(forKey: "key") as? String == key })
                }
                let work = try object("Folder", "f1"), urgent = try object("Tag", "t1"), n3 = try object("Note", "n3")
                #expect(try h.fetch("Note", NSPredicate(format: "folder == %@", work), in: context) == ["n1", "n2"])
                #expect(try h.fetch("Note", NSPredicate(format: "folder == %@", work.objectID), in: context) == ["n1", "n2"])
                #expect(try h.fetch("Note", NSPredicate(format: "folder != %@", work), in: context) == ["n3", "n4", "n5"])
                #expect(try h.fetch("Note", NSPredicate(format: "%@ IN tags", urgent), in: context) == ["n1"])
                #expect(try h.fetch("Note", NSPredicate(format: "tags CONTAINS %@", urgent), in: context) == ["n1"])
                #expect(try h.fetch("Note", NSPredicate(format: "SELF == %@", n3), in: context) == ["n3"])
                #expect(try h.fetch("Note", NSPredicate(format: "SELF IN %@", [n3, work]), in: context) == ["n3"])
                #expect(try h.fetch("Tag", NSPredicate(format: "note.folder == %@", work), in: context) == ["t1", "t2", "t3"])
                #expect(NSPredicate(format: "folder == %@", work).evaluate(with: try object("Note", "n1")))
            }
        }
    }

    /// NSCompoundPredicate composes format predicates.
    @Test func compoundPredicatesCompose() throws {
        let a = NSPredicate(format: "rating > %d", 2), b = NSPredicate(format: "done == YES")
        #expect(try h.keys("Note", NSCompoundPredicate(andPredicateWithSubpredicates: [a, b])) == ["n1"])
        #expect(try h.keys("Note", NSCompoundPredicate(orPredicateWithSubpredicates: [a, b])) == ["n1", "n2", "n4", "n5"])
        #expect(try h.keys("Note", NSCompoundPredicate(notPredicateWithSubpredicate: a)) == ["n3", "n4"])
        #expect(try h.keys("Note", NSCompoundPredicate(andPredicateWithSubpredicates: [a, NSPredicate(value: true)])) == ["n1", "n2", "n5"])
    }
}
