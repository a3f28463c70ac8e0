import Foundation
import Testing
import ManagedContext

@Suite struct ObjectTests {
    @Test func everyAttributeTypeRoundTrips() throws {
        let stack = try TestStack()
        let writer = stack.privateContext()
        let when = Date(timeIntervalSinceReferenceDate: 123_456_789.25)
        let blob = Data([0, 1, 2, 0, 255, 254])
        let id: ManagedObjectID = try writer.performAndWait {
            let s = Sample(context: writer)
            s.name = "Café \"Pipeline\", 🌊\nline two"
            s.small = Int16.min
            s.medium = Int32.max
            s.large = Int64.max
            s.ratio = -Double.pi
            s.flag = true
            s.when = when
            s.blob = blob
            let empty = Sample(context: writer)
            empty.small = nil
            try writer.save()
            return s.objectID
        }
        let reader = stack.privateContext()
        try reader.performAndWait {
            let s = try reader.existingObject(with: id) as! Sample
            #expect(s.name == "Café \"Pipeline\", 🌊\nline two")
            #expect(s.small == Int16.min)
            #expect(s.medium == Int32.max)
            #expect(s.large == Int64.max)
            #expect(s.ratio == -Double.pi)
            #expect(s.flag == true)
            #expect(s.when == when)
            #expect(s.blob == blob)
            let empty = try reader.fetch(FetchRequest<Sample>(predicate: \Sample.name == nil)).first!
            #expect(empty.name == nil && empty.small == nil && empty.medium == nil && empty.large == nil)
            #expect(empty.ratio == nil && empty.flag == nil && empty.when == nil && empty.blob == nil)
        }
    }

    /// GRDB binds strings NUL-terminated; a value with an embedded NUL must still
    /// be saved whole, not cut at the NUL.
    @Test func aStringWithANULByteIsSavedWhole() throws {
        let stack = try TestStack()
        let writer = stack.privateContext()
        let text = "before\0after"
        let id: ManagedObjectID = try writer.performAndWait {
            let s = Sample(context: writer)
            s.name = text
            try writer.save()
            return s.objectID
        }
        let reader = stack.privateContext()
        try reader.performAndWait { () throws in
            #expect((try reader.existingObject(with: id) as! Sample).name == text)
        }
    }

    @Test func defaultsApplyToNewObjects() throws {
        let stack = try TestStack()
        let c = stack.privateContext()
        c.performAndWait {
            #expect(Sample(context: c).small == 7)
            #expect(Visit(context: c).rating == 0)
        }
    }

    @Test func relationshipsAndInversesSurviveSaveAndRefetch() throws {
        let stack = try TestStack()
        let c = stack.privateContext()
        let placeID: ManagedObjectID = try c.performAndWait {
            let place = Place(context: c)
            place.title = "Rincon"
            let a = Visit(context: c)
            a.note = "a"
            a.place = place
            let b = Visit(context: c)
            b.note = "b"
            place.visits.insert(b)
            // Both sides agree before the save.
            #expect(place.visits.compactMap(\.note).sorted() == ["a", "b"])
            #expect(b.place === place)
            let person = Person(context: c)
            person.name = "Kelly"
            person.home = place
            #expect(place.owner === person)
            try c.save()
            return place.objectID
        }
        let other = stack.privateContext()
        try other.performAndWait {
            let place = try other.existingObject(with: placeID) as! Place
            #expect(place.visits.compactMap(\.note).sorted() == ["a", "b"])
            #expect(place.owner?.name == "Kelly")
            #expect(place.owner?.home === place)
            let a = place.visits.first { $0.note == "a" }!
            a.place = nil
            #expect(place.visits.compactMap(\.note) == ["b"])
            try other.save()
        }
        try stack.privateContext().performAndWait {
            let visits = try stack.privateContext().count(for: FetchRequest<Visit>())
            #expect(visits == 2)
        }
        let third = stack.privateContext()
        try third.performAndWait {
            let place = try third.existingObject(with: placeID) as! Place
            #expect(place.visits.compactMap(\.note) == ["b"])
            // Cascade: deleting the place deletes its visits; nullify clears the owner's home.
            let owner = place.owner!
            third.delete(place)
            #expect(owner.home == nil)
            try third.save()
            #expect(try third.count(for: FetchRequest<Visit>(predicate: \Visit.note == "b")) == 0)
            #expect(try third.count(for: FetchRequest<Visit>()) == 1)
        }
    }

    @Test func objectIDsAreTemporaryUntilSavedAndRoundTripAsURIs() throws {
        let stack = try TestStack()
        let c = stack.privateContext()
        try c.performAndWait {
            let s = Sample(context: c)
            #expect(s.objectID.isTemporaryID)
            let temporaryURI = s.objectID.uriRepresentation()
            #expect(temporaryURI.absoluteString.hasPrefix("x-coredata:///Sample/t"))
            #expect(stack.coordinator.managedObjectID(forURIRepresentation: temporaryURI) == s.objectID)
            try c.save()
            #expect(!s.objectID.isTemporaryID)
            let uri = s.objectID.uriRepresentation()
            #expect(uri.absoluteString == "x-coredata://\(stack.coordinator.storeUUID!)/Sample/p1")
            #expect(stack.coordinator.managedObjectID(forURIRepresentation: uri) == s.objectID)

            let early = Sample(context: c)
            try c.obtainPermanentIDs(for: [early])
            #expect(!early.objectID.isTemporaryID)
            let earlyID = early.objectID
            try c.save()
            #expect(early.objectID == earlyID)
        }
        for bad in [
            "x-coredata://\(UUID().uuidString)/Sample/p1", "x-coredata://\(stack.coordinator.storeUUID!)/Nope/p1",
            "x-coredata://\(stack.coordinator.storeUUID!)/Sample/p-3", "x-coredata://\(stack.coordinator.storeUUID!)/Sample/q1",
            "https://example.com/Sample/p1", "x-coredata://\(stack.coordinator.storeUUID!)/Sample/p",
        ] {
            #expect(stack.coordinator.managedObjectID(forURIRepresentation: URL(string: bad)!) == nil, "\(bad)")
        }
    }

    @Test func existingObjectThrowsWhenTheRowIsGoneAndObjectWithReturnsAFault() throws {
        let stack = try TestStack()
        let c = stack.privateContext()
        let id: ManagedObjectID = try c.performAndWait {
            let s = Sample(context: c)
            s.name = "x"
            try c.save()
            return s.objectID
        }
        let other = stack.privateContext()
        other.performAndWait {
            let fault = other.object(with: id) as! Sample
            #expect(fault.isFault)
            #expect(fault.name == "x")
            #expect(!fault.isFault)
            #expect(other.registeredObject(for: id) === fault)
        }
        try c.performAndWait {
            c.delete(c.object(with: id))
            try c.save()
        }
        let third = stack.privateContext()
        _ = third.performAndWait {
            #expect(throws: ManagedContextError.self) { try third.existingObject(with: id) }
        }
    }

    @Test func rollbackResetAndRefresh() throws {
        let stack = try TestStack()
        let c = stack.privateContext()
        try c.performAndWait {
            let s = Sample(context: c)
            s.name = "saved"
            try c.save()
            s.name = "edited"
            let fresh = Sample(context: c)
            #expect(c.hasChanges)
            c.rollback()
            #expect(!c.hasChanges)
            #expect(s.name == "saved")
            #expect(fresh.managedObjectContext == nil)
            #expect(try c.count(for: FetchRequest<Sample>()) == 1)

            s.name = "edited again"
            c.refresh(s, mergeChanges: false)
            #expect(s.isFault)
            #expect(s.name == "saved")
            #expect(!c.hasChanges)

            c.reset()
            #expect(c.registeredObjects.isEmpty)
        }
    }

    /// A deleted object leaves its context when the deletion is saved, to the store or
    /// into a parent: `managedObjectContext` is nil from then on (Core Data: "may be
    /// nil if the receiver has been deleted from its context"), its values read as nil,
    /// and deleting it again does nothing. An object inserted and deleted before a save
    /// keeps its context until the save, or until a rollback discards the insert.
    @Test func aDeletedObjectLeavesItsContextWhenTheDeletionIsSaved() throws {
        let stack = try TestStack()
        let parent = stack.privateContext("parent")
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        let id: ManagedObjectID = try parent.performAndWait {
            let s = Sample(context: parent)
            s.name = "kept until deleted"
            try parent.save()
            return s.objectID
        }
        try child.performAndWait {
            let s = child.object(with: id) as! Sample
            #expect(s.name == "kept until deleted")
            child.delete(s)
            #expect(s.managedObjectContext === child)
            try child.save()
            #expect(s.managedObjectContext == nil, "saved into the parent: gone from the child")
            #expect(!s.isDeleted && s.name == nil)
            #expect(s.small == nil, "nil, not the model's default (7)")
            child.delete(s)
            #expect(!child.hasChanges)
        }
        try parent.performAndWait {
            let s = parent.object(with: id)
            #expect(s.isDeleted, "the parent holds the child's deletion, unsaved")
            try parent.save()
            #expect(s.managedObjectContext == nil)
            #expect(try parent.count(for: FetchRequest<Sample>()) == 0)

            let draft = Sample(context: parent)
            parent.delete(draft)
            #expect(draft.managedObjectContext === parent)
            parent.rollback()
            #expect(draft.managedObjectContext == nil, "the rollback discards the insert")
            #expect(!parent.hasChanges)
        }
    }
}
