import Foundation
import Testing
import ManagedContext

/// `enumerateObjects(for:using:)`, the streamed fetch: the same objects, in the same
/// order, as `fetch`, but read one row at a time from one query.
@Suite struct EnumerateObjectsTests {
    func seeded(_ n: Int) throws -> TestStack {
        let stack = try TestStack()
        let c = stack.privateContext()
        try c.performAndWait {
            for i in 0..<n {
                let s = Sample(context: c)
                s.name = ["Rincon", "Malibu", "Pipeline"][i % 3]
                s.small = Int16(i % 5)
                s.large = Int64(i)
            }
            try c.save()
        }
        return stack
    }

    func enumerated<T: ManagedObject>(_ c: ManagedObjectContext, _ request: FetchRequest<T>) throws -> [T] {
        var objects: [T] = []
        try c.enumerateObjects(for: request) { objects.append($0) }
        return objects
    }

    /// Requests that exercise the order, the predicate and the window.
    var requests: [FetchRequest<Sample>] {
        let byLarge = [FetchSortDescriptor(\Sample.large, ascending: false)]
        let bySmall = [FetchSortDescriptor(\Sample.small), FetchSortDescriptor(\Sample.name, ascending: false)]
        var limited = FetchRequest<Sample>(sortDescriptors: bySmall)
        limited.fetchOffset = 3
        limited.fetchLimit = 7
        var storeOnly = FetchRequest<Sample>(predicate: \Sample.small == 9, sortDescriptors: byLarge)
        storeOnly.includesPendingChanges = false
        return [
            FetchRequest(sortDescriptors: byLarge), FetchRequest(sortDescriptors: bySmall), limited, storeOnly,
            FetchRequest(predicate: \Sample.small == 9, sortDescriptors: byLarge),
            FetchRequest(predicate: .beginsWith(\.name, "Ma") || \Sample.large > 25, sortDescriptors: bySmall),
        ]
    }

    /// Unsaved inserts, changes (one moved in the order, one that now matches
    /// `small == 9`, one that no longer matches) and a delete, as in `fetch`'s test.
    func change(_ c: ManagedObjectContext) throws {
        let all = try c.fetch(FetchRequest<Sample>(sortDescriptors: [FetchSortDescriptor(\Sample.large)]))
        all[3].large = 100
        all[5].small = 9
        all[9].name = "Mavericks"
        c.delete(all[0])
        for large in [50, -1] {
            let added = Sample(context: c)
            added.large = Int64(large)
            added.small = 9
        }
    }

    @Test func itSeesWhatFetchSeesWithUnsavedChanges() throws {
        let stack = try seeded(30)
        let c = stack.privateContext()
        try c.performAndWait {
            for request in requests {
                #expect(try enumerated(c, request).map(\.objectID) == c.fetch(request).map(\.objectID), "no changes")
            }
            try change(c)
            for request in requests {
                let fetched = try c.fetch(request)
                let streamed = try enumerated(c, request)
                #expect(streamed.map(\.objectID) == fetched.map(\.objectID))
                // The registered objects themselves, with their pending values.
                #expect(zip(streamed, fetched).allSatisfy { $0 === $1 })
                #expect(streamed.map(\.large) == fetched.map(\.large))
            }
            #expect(try enumerated(c, requests[0]).first?.large == 100)
        }
    }

    @Test func aChildContextSeesItsOwnAndItsParentsUnsavedChanges() throws {
        let stack = try seeded(20)
        let parent = stack.privateContext("parent")
        try parent.performAndWait { try change(parent) }
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        try child.performAndWait {
            let first = try child.fetch(FetchRequest<Sample>(sortDescriptors: [FetchSortDescriptor(\Sample.large)]))
            first[1].large = 1_000
            for request in requests {
                #expect(try enumerated(child, request).map(\.objectID) == child.fetch(request).map(\.objectID))
            }
            #expect(try enumerated(child, requests[0]).first?.large == 1_000)
        }
    }

    @Test func objectsNotKeptAreReleasedAsItGoes() throws {
        let stack = try seeded(2_000)
        let c = stack.privateContext()
        try c.performAndWait {
            var expected: Int64 = 0
            var maxRegistered = 0
            try c.enumerateObjects(for: FetchRequest<Sample>(sortDescriptors: [FetchSortDescriptor(\Sample.large)])) { s in
                #expect(s.large == expected)
                expected += 1
                if expected % 100 == 0 { maxRegistered = max(maxRegistered, c.registeredObjects.count) }
            }
            #expect(expected == 2_000)
            #expect(maxRegistered <= 2, "registered \(maxRegistered) objects while streaming one at a time")
        }
    }

    /// Past the registry's purges (one per 1,024 registrations at least), the objects
    /// the block kept stay registered as themselves, and a second pass hands them back
    /// (Core Data: `registeredObject(for:)` finds an object while something holds it).
    @Test func keptObjectsStayRegisteredAcrossPurges() throws {
        let stack = try seeded(5_000)
        let c = stack.privateContext()
        try c.performAndWait {
            let request = FetchRequest<Sample>(sortDescriptors: [FetchSortDescriptor(\Sample.large)])
            var kept: [Sample] = []
            try c.enumerateObjects(for: request) { s in if (s.large ?? -1) % 97 == 0 { kept.append(s) } }
            #expect(kept.count == 52)
            for s in kept { #expect(c.registeredObject(for: s.objectID) === s) }
            var again = 0
            try c.enumerateObjects(for: request) { s in
                if let large = s.large, large % 97 == 0 {
                    #expect(s === kept[Int(large / 97)])
                    again += 1
                }
            }
            #expect(again == kept.count)
        }
    }

    /// While the block runs, its object is registered like any fetched one: the
    /// context's lookups, `registeredObjects` and a nested enumeration or fetch all
    /// hand back the same instance (Core Data uniques objects per context: one
    /// object per objectID while it lives). Once nothing holds it, it is gone, as a
    /// weakly registered object is (`retainsRegisteredObjects` is false by default).
    @Test func theStreamedObjectIsRegisteredWhileTheBlockRuns() throws {
        let stack = try seeded(30)
        let c = stack.privateContext()
        try c.performAndWait {
            let request = FetchRequest<Sample>(sortDescriptors: [FetchSortDescriptor(\Sample.large)])
            var ids: [ManagedObjectID] = []
            weak var lastSeen: Sample?
            try c.enumerateObjects(for: request) { s in
                ids.append(s.objectID)
                #expect(c.registeredObject(for: s.objectID) === s)
                #expect(c.object(with: s.objectID) === s)
                #expect(try c.existingObject(with: s.objectID) === s)
                #expect(c.registeredObjects.contains(s))
                if s.large == 4 {
                    var inner: [Sample] = []
                    try c.enumerateObjects(for: request) { inner.append($0) }
                    #expect(inner[4] === s, "a nested enumeration hands back the outer block's object")
                    #expect(try c.fetch(request)[4] === s)
                }
                lastSeen = s
            }
            #expect(ids.count == 30)
            #expect(lastSeen == nil, "nothing holds the last object: it is gone, not kept by the context")
            #expect(c.registeredObject(for: ids[29]) == nil)
        }
    }

    /// An object the block changes, or only points at weakly, is handled as a
    /// weakly registered object would be: the changed one stays (the context holds
    /// changed objects), and is the one the next enumeration returns; the other dies.
    @Test func aChangedObjectStaysAndAWeaklyHeldOneDies() throws {
        let stack = try seeded(10)
        let c = stack.privateContext()
        try c.performAndWait {
            let request = FetchRequest<Sample>(sortDescriptors: [FetchSortDescriptor(\Sample.large)])
            weak var weaklyHeld: Sample?
            var changedID: ManagedObjectID?
            try c.enumerateObjects(for: request) { s in
                if s.large == 3 { s.name = "Mavericks"; changedID = s.objectID }
                if s.large == 6 { weaklyHeld = s }
            }
            #expect(weaklyHeld == nil)
            let id = try #require(changedID)
            let changed = try #require(c.registeredObject(for: id) as? Sample)
            #expect(changed.name == "Mavericks")
            #expect(c.updatedObjects.contains(changed))
            var again: Sample?
            try c.enumerateObjects(for: request) { s in if s.objectID == changedID { again = s } }
            #expect(again === changed)
        }
    }

    /// `reset()` or deleting and saving the block's own object while it runs leaves
    /// the registry consistent: the object is not registered afterwards.
    @Test func theBlockCanResetOrDeleteItsObject() throws {
        let stack = try seeded(5)
        let c = stack.privateContext()
        try c.performAndWait {
            let request = FetchRequest<Sample>(sortDescriptors: [FetchSortDescriptor(\Sample.large)])
            var deletedID: ManagedObjectID?
            try c.enumerateObjects(for: request) { s in
                if s.large == 1 {
                    deletedID = s.objectID
                    c.delete(s)
                    try c.save()
                }
                if s.large == 3 { c.reset() }
            }
            let id = try #require(deletedID)
            #expect(c.registeredObject(for: id) == nil)
            #expect(c.registeredObjects.isEmpty)
            #expect(try c.count(for: request) == 4)
        }
    }

    /// The block may use the store while the stream is open (a fetch, a count, a
    /// fault); an error it throws ends the enumeration and reaches the caller.
    @Test func theBlockCanFetchAndItsErrorStopsTheEnumeration() throws {
        struct Stop: Error {}
        let stack = try seeded(50)
        let c = stack.privateContext()
        try c.performAndWait {
            let fault = try c.existingObject(with: c.fetchObjectIDs(FetchRequest<Sample>(predicate: \Sample.large == 7)).first!) as! Sample
            c.refresh(fault, mergeChanges: false)
            var seen = 0
            #expect(throws: Stop.self) {
                try c.enumerateObjects(for: FetchRequest<Sample>(sortDescriptors: [FetchSortDescriptor(\Sample.large)])) { s in
                    seen += 1
                    if seen == 1 {
                        #expect(fault.isFault)
                        #expect(fault.large == 7, "a fault fired while the stream is open")
                    }
                    #expect(try c.count(for: FetchRequest<Sample>(predicate: \Sample.large <= s.large!)) == seen)
                    if seen == 10 { throw Stop() }
                }
            }
            #expect(seen == 10)
        }
    }

    @Test func aSavedChangeFromAnotherContextShowsInTheNextEnumeration() throws {
        let stack = try seeded(10)
        let reader = stack.privateContext("reader")
        let writer = stack.privateContext("writer")
        let request = FetchRequest<Sample>(predicate: \Sample.small == 9)
        #expect(try reader.performAndWait { try enumerated(reader, request).count } == 0)
        try writer.performAndWait {
            Sample(context: writer).small = 9
            try writer.save()
        }
        #expect(try reader.performAndWait { try enumerated(reader, request).count } == 1)
    }
}
