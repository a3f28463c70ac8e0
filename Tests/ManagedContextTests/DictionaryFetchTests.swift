import ConcurrencyDebug
import Dispatch
import Foundation
import ManagedContext
import TestSupport
import Testing

/// Dictionary results (`resultType = .dictionaryResultType`), written from Apple's
/// documentation of NSFetchRequest:
/// - resultType: https://developer.apple.com/documentation/coredata/nsfetchrequest/resulttype
///   (`.managedObjectResultType` is the default).
/// - propertiesToFetch: https://developer.apple.com/documentation/coredata/nsfetchrequest/propertiestofetch
///   ("attributes, to-one relationships, or expressions"; names must match the entity's).
/// - includesPendingChanges: https://developer.apple.com/documentation/coredata/nsfetchrequest/includespendingchanges
///   ("A value of YES is not supported in conjunction with NSDictionaryResultType ...
///   the array returned ... reflects the current state in the persistent store, and
///   does not take into account any pending changes, insertions, or deletions in the context").
/// - returnsDistinctResults: https://developer.apple.com/documentation/coredata/nsfetchrequest/returnsdistinctresults
///   ("used only if a value has been set for propertiesToFetch"; default false).
@Suite struct DictionaryFetchTests {
    func seeded() throws -> TestStack {
        let stack = try TestStack()
        let c = stack.privateContext()
        try c.performAndWait {
            for i in 0..<12 {
                let s = Sample(context: c)
                s.name = i % 4 == 3 ? nil : ["Rincon", "Malibu", "Pipeline"][i % 3]
                s.small = Int16(i % 3)
                s.large = Int64(i)
                s.ratio = Double(i) / 4
                s.flag = i % 2 == 0
                s.when = Date(timeIntervalSinceReferenceDate: Double(i) * 86_400)
            }
            try c.save()
        }
        return stack
    }

    func dictionaryRequest(_ properties: [String]?, sorts: [FetchSortDescriptor<Sample>] = [FetchSortDescriptor(\Sample.large)]) -> FetchRequest<Sample> {
        var request = FetchRequest<Sample>(sortDescriptors: sorts)
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = properties
        return request
    }

    /// The default result type is managed objects (Apple: resultType, "The default
    /// value is managedObjectResultType").
    @Test func theDefaultResultTypeIsManagedObjects() {
        #expect(FetchRequest<Sample>().resultType == .managedObjectResultType)
        #expect(FetchRequest<Sample>().propertiesToFetch == nil)
        #expect(FetchRequest<Sample>().returnsDistinctResults == false)
    }

    /// Each row holds the fetched properties under their names, read like a
    /// dictionary; a nil value has no key (Core Data's result dictionaries leave nil
    /// attributes out: an NSDictionary cannot hold nil).
    @Test func rowsReadLikeDictionariesAndLeaveNilValuesOut() throws {
        let stack = try seeded()
        let c = stack.privateContext()
        let rows = try c.performAndWait { try c.fetchDictionaries(dictionaryRequest(["large", "name", "when", "flag", "ratio"])) }
        #expect(rows.count == 12)
        let third = rows[3]  // large 3: name nil
        #expect(third["large"] as? Int64 == 3)
        #expect(third["name"] == nil)
        #expect(third["when"] as? Date == Date(timeIntervalSinceReferenceDate: 3 * 86_400))
        #expect(third["flag"] as? Bool == false)
        #expect(third["ratio"] as? Double == 0.75)
        #expect(third["small"] == nil, "not fetched")
        #expect(third.keys == ["large", "when", "flag", "ratio"])
        #expect(third.count == 4)
        #expect(Set(third.map(\.key)) == ["large", "when", "flag", "ratio"])
        #expect(rows[1]["name"] as? String == "Malibu")
        #expect(rows[1].count == 5)
        #expect(rows[1].value(forKey: "large", as: Int64.self) == 1)
        let position = try #require(rows[1].keyTable.position(of: "name"))
        #expect(rows[1].value(at: position, as: String.self) == "Malibu")
        #expect(rows[1].dictionary["ratio"] as? Double == 0.25)
        // All rows share one key table, in propertiesToFetch order.
        #expect(rows.allSatisfy { $0.keyTable === rows[0].keyTable })
        #expect(rows[0].keyTable.names == ["large", "name", "when", "flag", "ratio"])
    }

    /// nil propertiesToFetch: every attribute.
    @Test func withoutPropertiesToFetchEveryAttributeIsFetched() throws {
        let stack = try seeded()
        let c = stack.privateContext()
        let rows = try c.performAndWait { try c.fetchDictionaries(dictionaryRequest(nil)) }
        #expect(rows[0].keyTable.names == ["name", "small", "medium", "large", "ratio", "flag", "when", "blob"])
        #expect(rows[0]["small"] as? Int16 == 0 && rows[0]["medium"] == nil && rows[0]["name"] as? String == "Rincon")
    }

    /// A to-one relationship's value is the related object's objectID (Apple:
    /// propertiesToFetch may name to-one relationships; Core Data returns the
    /// destination's NSManagedObjectID).
    @Test func aToOneRelationshipYieldsTheRelatedObjectsID() throws {
        let stack = try TestStack()
        let c = stack.privateContext()
        let (placeID, rows) = try c.performAndWait {
            let place = Place(context: c)
            place.title = "Rincon"
            for note in ["dawn", "dusk"] {
                let v = Visit(context: c)
                v.note = note
                v.place = note == "dawn" ? place : nil
            }
            try c.save()
            var request = FetchRequest<Visit>(sortDescriptors: [FetchSortDescriptor(\Visit.note)])
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["note", "place"]
            return (place.objectID, try c.fetchDictionaries(request))
        }
        #expect(rows.map { $0["note"] as? String } == ["dawn", "dusk"])
        #expect(rows[0]["place"] as? ManagedObjectID == placeID)
        #expect(rows[0].objectID(forKey: "place") == placeID)
        #expect(rows[1]["place"] == nil, "no related object: no key")
    }

    /// Unsaved inserts, changes and deletes are not in dictionary results, whatever
    /// includesPendingChanges says (Apple: includesPendingChanges, quoted above).
    @Test(arguments: [true, false])
    func unsavedChangesAreNotIncluded(includesPendingChanges: Bool) throws {
        let stack = try seeded()
        let c = stack.privateContext()
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = c
        try c.performAndWait {
            let all = try c.fetch(FetchRequest<Sample>(sortDescriptors: [FetchSortDescriptor(\Sample.large)]))
            all[0].large = 100  // changed
            c.delete(all[1])  // deleted
            Sample(context: c).large = 200  // inserted
            var request = dictionaryRequest(["large"])
            request.includesPendingChanges = includesPendingChanges
            let larges = try c.fetchDictionaries(request).map { $0["large"] as? Int64 }
            #expect(larges == (0..<12).map { Int64($0) })
            var counted = FetchRequest<Sample>()
            counted.includesPendingChanges = true
            #expect(try c.count(for: counted) == 12, "fetch and count do include them")
        }
        let inChild = try child.performAndWait { try child.fetchDictionaries(dictionaryRequest(["large"])).count }
        #expect(inChild == 12, "a child sees the store, not its parent's unsaved changes")
    }

    /// returnsDistinctResults leaves out rows equal in every fetched property.
    @Test func distinctResultsLeaveOutRepeatedRows() throws {
        let stack = try seeded()
        let c = stack.privateContext()
        var request = dictionaryRequest(["small"], sorts: [FetchSortDescriptor(\Sample.small, ascending: false)])
        request.returnsDistinctResults = true
        let smalls = try c.performAndWait { try c.fetchDictionaries(request).map { $0["small"] as? Int16 } }
        #expect(smalls == [2, 1, 0])
        request.returnsDistinctResults = false
        #expect(try c.performAndWait { try c.fetchDictionaries(request).count } == 12)
    }

    /// The predicate, sorts, fetchLimit and fetchOffset apply as to objects; the
    /// streamed form gives the same rows as the array.
    @Test func theRequestsPredicateOrderAndWindowApplyAndStreamingMatches() throws {
        let stack = try seeded()
        let c = stack.privateContext()
        var request = dictionaryRequest(["large", "name"], sorts: [FetchSortDescriptor(\Sample.large, ascending: false)])
        request.predicate = \Sample.small == 1
        request.fetchOffset = 1
        request.fetchLimit = 2
        request.fetchBatchSize = 1
        let (fetched, streamed) = try c.performAndWait {
            var streamed: [FetchedDictionary] = []
            try c.enumerateDictionaries(for: request) { streamed.append($0) }
            return (try c.fetchDictionaries(request), streamed)
        }
        #expect(fetched.map { $0["large"] as? Int64 } == [7, 4])
        #expect(streamed.map { $0["large"] as? Int64 } == [7, 4], "a kept row keeps its values")
        #expect(streamed.map { $0.description } == fetched.map { $0.description })
    }

    @Test func mistakesAreInvalidFetchRequests() throws {
        let stack = try seeded()
        let c = stack.privateContext()
        func code(_ body: () throws -> Void) -> ManagedContextError.Code? {
            do { try body(); return nil } catch let e as ManagedContextError { return e.code } catch { return nil }
        }
        c.performAndWait {
            #expect(code { _ = try c.fetchDictionaries(FetchRequest<Sample>()) } == .invalidFetchRequest, "resultType not set")
            #expect(code { _ = try c.fetch(dictionaryRequest(["name"])) } == .invalidFetchRequest, "objects asked of a dictionary request")
            #expect(code { try c.enumerateObjects(for: dictionaryRequest(["name"])) { _ in } } == .invalidFetchRequest)
            #expect(code { _ = try c.fetchDictionaries(dictionaryRequest(["nope"])) } == .invalidFetchRequest)
            #expect(code { _ = try c.fetchDictionaries(dictionaryRequest([])) } == .invalidFetchRequest)
            var visits = FetchRequest<Place>()
            visits.resultType = .dictionaryResultType
            visits.propertiesToFetch = ["visits"]
            #expect(code { _ = try c.fetchDictionaries(visits) } == .invalidFetchRequest, "a to-many relationship")
        }
    }

    /// A dictionary fetch is a context access as `fetch` is: off its queue it is
    /// reported as a wrong-queue "fetch", the same as `fetch`'s, and journaled as one.
    @Test func aDictionaryFetchOffTheContextsQueueIsReportedAsAFetch() async throws {
        let journal = temporaryPath("journal")
        defer { unlink(journal) }
        // Report mode exits with 66 when it reported violations; a failed
        // precondition in the child would end it with a signal instead.
        await #expect(processExitsWith: .exitCode(66)) { [journal = journal as String] in
            checkInReportMode(level: 3, journal: journal)
            dictionaryFetchesOffQueue()
            ConcurrencyDebug.flushAccessJournal()
        }
        let reader = try AccessJournalReader(path: journal)
        var refusedFetches = 0
        reader.forEachEvent { e in
            if !e.allowed && e.operation == .fetch { refusedFetches += 1 }
        }
        #expect(refusedFetches == 3, "fetch, fetchDictionaries and enumerateDictionaries, each refused once")
    }
}

/// Runs in a child in report mode: `fetch`, `fetchDictionaries` and
/// `enumerateDictionaries` on a private context from another queue, each one violation
/// with operation "fetch"; the same three inside `performAndWait`, none.
func dictionaryFetchesOffQueue() {
    let stack = try! TestStack()
    let c = stack.privateContext("dictionaries")
    c.performAndWait {
        Sample(context: c).name = "Rincon"
        try! c.save()
    }
    var request = FetchRequest<Sample>()
    request.resultType = .dictionaryResultType
    let objects = FetchRequest<Sample>()
    c.performAndWait {
        _ = try! c.fetch(objects)
        _ = try! c.fetchDictionaries(request)
        try! c.enumerateDictionaries(for: request) { _ in }
    }
    precondition(ConcurrencyDebug.recordedViolations.isEmpty, "on the queue: \(ConcurrencyDebug.recordedViolations.map(\.message))")
    DispatchQueue(label: "test.elsewhere").sync {
        _ = try! c.fetch(objects)
        precondition(try! c.fetchDictionaries(request).count == 1)
        try! c.enumerateDictionaries(for: request) { _ in }
    }
    let violations = ConcurrencyDebug.recordedViolations
    precondition(violations.reduce(0) { $0 + $1.count } == 3, "three violations: \(violations.map(\.message))")
    precondition(violations.allSatisfy { $0.kind == .wrongQueue && $0.access.operation == "fetch" }, "\(violations.map(\.message))")
}
