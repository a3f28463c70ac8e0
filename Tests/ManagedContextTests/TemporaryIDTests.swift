import ConcurrencyDebug
import Foundation
import Testing
import ManagedContext

/// A temporary objectID kept from before a save names nothing after it, as in Core
/// Data (issue 18, part 4):
/// - NSManagedObject.objectID: "If the receiver has not yet been saved, the object ID
///   is a temporary value that will change when the object is saved."
/// - NSManagedObjectID.isTemporaryID: new objects "are assigned a temporary ID which
///   is replaced with a permanent one once the object gets saved to a persistent store."
/// - existingObject(with:): "If the object doesn't exist in both the context and the
///   persistent store, the method throws an error."
/// - registeredObject(for:): nil when "the context doesn't recognize the specified object".
/// - object(with:) returns a fault, which raises "could not fulfill a fault" when it fires.
/// (developer.apple.com/documentation/coredata/…)
@Suite struct TemporaryIDTests {
    @Test func aTemporaryIDKeptFromBeforeTheSaveFindsNothingAfterIt() throws {
        let stack = try TestStack()
        let a = stack.privateContext("A")
        let b = stack.privateContext("B")
        let (temporary, permanent) = try a.performAndWait {
            let s = Sample(context: a)
            s.name = "saved"
            let before = s.objectID
            try a.save()
            return (before, s.objectID)
        }
        #expect(temporary.isTemporaryID && !permanent.isTemporaryID)
        // In another context.
        b.performAndWait {
            #expect(b.registeredObject(for: temporary) == nil)
            #expect(throws: ManagedContextError.self) { try b.existingObject(with: temporary) }
            #expect((b.object(with: temporary) as! Sample).name == nil, "the dead ID loads nothing")
            #expect((b.object(with: permanent) as! Sample).name == "saved", "the permanent ID does")
        }
        // In the context that saved it.
        a.performAndWait {
            #expect(a.registeredObject(for: temporary) == nil)
            #expect(throws: ManagedContextError.self) { try a.existingObject(with: temporary) }
            #expect((try? a.existingObject(with: permanent) as? Sample)?.name == "saved")
        }
    }

    /// The runtime's own uses of the alias keep working: a child keeps the temporary
    /// ID of an object its parent saved since (as Core Data's children do), finds it
    /// under that ID, and its relationships and faults still resolve.
    @Test func aChildKeepsTheTemporaryIDOfAnObjectItsParentSaved() throws {
        let stack = try TestStack()
        let root = stack.privateContext("root")
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = root
        // The child's objects stay alive (an editor holds them): a context keeps
        // strong references only to objects with unsaved changes, as Core Data's does.
        let (visit, place) = try child.performAndWait {
            let place = Place(context: child)
            place.title = "Rincon"
            let visit = Visit(context: child)
            visit.place = place
            try child.save()
            return (visit, place)
        }
        nonisolated(unsafe) let held = (visit, place)
        defer { withExtendedLifetime(held) {} }
        let (visitID, placeID) = child.performAndWait { (visit.objectID, place.objectID) }
        try root.performAndWait { try root.save() }
        #expect(visitID.isTemporaryID, "the child still knows the objects by their temporary IDs")
        let (title, found) = child.performAndWait {
            let visit = child.object(with: visitID) as! Visit
            return (visit.place?.title, (try? child.existingObject(with: placeID)) != nil)
        }
        #expect(title == "Rincon")
        #expect(found)
        // A grandchild made now asks the child, which still holds the objects under
        // those IDs: alive there too.
        let grandchild = ManagedObjectContext(concurrencyType: .privateQueue)
        grandchild.parent = child
        #expect(grandchild.performAndWait { (grandchild.object(with: placeID) as! Place).title } == "Rincon")
        // A sibling of the child asks the root, which knows them only by their
        // permanent IDs now: dead there, as in Core Data.
        let sibling = ManagedObjectContext(concurrencyType: .privateQueue)
        sibling.parent = root
        _ = sibling.performAndWait {
            #expect(throws: ManagedContextError.self) { try sibling.existingObject(with: placeID) }
        }
    }

    /// The temporary-id diagnostic now catches code that keeps one past the save; its
    /// twin, which takes the objectID after the save, is clean.
    @Test(arguments: ["kept", "kept-twin"])
    func theTemporaryIDDiagnosticCatchesAnIDKeptPastTheSave(scenario: String) async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [scenario = scenario as String] in
            ConcurrencyDebug.Variable.set([.concurrency: "1", .onViolation: "log", .diagnostics: "temporary-id"])
            keptTemporaryID(twin: scenario.hasSuffix("twin"))
            let kinds = ConcurrencyDebug.recordedViolations.map(\.kind.rawValue)
            precondition(kinds == (scenario.hasSuffix("twin") ? [] : ["temporary-id"]), "recorded \(kinds)")
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        if scenario.hasSuffix("twin") {
            #expect(!stderr.contains("BUG DETECTED"), "\(stderr)")
        } else {
            #expect(stderr.contains("kept from before its object was saved"), "\(stderr)")
            #expect(stderr.contains("take the objectID after the save"), "\(stderr)")
        }
    }
}

private func keptTemporaryID(twin: Bool) {
    let stack = try! TestStack()
    let a = stack.privateContext("A")
    let b = stack.privateContext("B")
    let id: ManagedObjectID = a.performAndWait {
        let s = Sample(context: a)
        s.name = "new"
        let before = s.objectID
        try! a.save()
        return twin ? s.objectID : before
    }
    b.performAndWait { _ = (b.object(with: id) as! Sample).name }
}
