import Foundation
import Testing
import TestSupport

@testable import CoreData

/// `undoManager`, `undo()` and `redo()` on a context, as Core Data has them.
///
/// Apple, NSManagedObjectContext: `undo()` "Sends an undo message to the context's undo
/// manager, asking it to reverse the latest uncommitted changes applied to objects in the
/// object graph"; `rollback()` "Removes everything from the undo stack, discards all
/// insertions and deletions, and restores updated objects to their last committed
/// values"; `processPendingChanges()` "causes changes to registered managed objects to
/// be recorded with the undo manager". Core Data Programming Guide (Undo Management):
/// "Core Data, though, queues up the undo registrations and adds them in a batch";
/// "to perform operations without undo registration, you send an undo manager a
/// disableUndoRegistration message, make the changes, and then send the undo manager an
/// enableUndoRegistration message. Before each, you send the context a
/// processPendingChanges message". The first two tests are alemar11/CoreDataPlus's
/// `test_InvestigationUndoManager` (Tests/NSManagedObjectContextInvestigation_Tests.swift),
/// which passes against Apple's Core Data, in this model.
@Suite struct UndoTests {
    static func container(_ url: URL) throws -> NSPersistentContainer {
        let model = try #require(NSManagedObjectModel(contentsOf: Fixtures.url("Library.xcdatamodel")))
        let container = NSPersistentContainer(name: "Library", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    static func fillWithSampleData(_ c: NSManagedObjectContext) {
        for i in 0..<3 {
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: c)
            book.setValue("book \(i)", forKey: "title")
        }
    }

    static func title(_ o: NSManagedObject) -> String? { o.value(forKey: "title") as? String }

    static func titles(in url: URL) throws -> [String] {
        let c = try container(url).newBackgroundContext()
        return try c.performAndWait {
            try c.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book")).compactMap(Self.title).sorted()
        }
    }

    @Test func undoAndRedoInsertsAndRollbackEmptiesTheStack() throws {
        let dir = TempDirectory("undo-investigation")
        let container = try Self.container(dir.file("Library.sqlite"))
        let context = container.newBackgroundContext()
        #expect(context.undoManager == nil)
        context.undoManager = UndoManager()
        context.performAndWait {
            Self.fillWithSampleData(context)
            context.undo()
            #expect(context.insertedObjects.isEmpty)
            context.redo()
            #expect(context.insertedObjects.count == 3)
            context.rollback()
            #expect(context.insertedObjects.isEmpty)
            context.redo()
            #expect(context.insertedObjects.isEmpty)
        }
        let plain = container.newBackgroundContext()
        plain.performAndWait {
            Self.fillWithSampleData(plain)
            plain.undo()
            #expect(plain.insertedObjects.count == 3)
            plain.rollback()
            #expect(plain.insertedObjects.isEmpty)
        }
    }

    @Test func changesMadeWhileRegistrationIsDisabledAreNotUndone() throws {
        let dir = TempDirectory("undo-disabled")
        let context = try Self.container(dir.file("Library.sqlite")).newBackgroundContext()
        context.performAndWait {
            context.undoManager = UndoManager()
            context.processPendingChanges()
            context.undoManager!.disableUndoRegistration()
            Self.fillWithSampleData(context)
            context.processPendingChanges()
            context.undoManager!.enableUndoRegistration()
            context.undo()
            #expect(context.insertedObjects.count == 3)
        }
    }

    /// Each processing of pending changes is one undo step; undo walks back one at a time,
    /// redo forward, and a new change after an undo drops what could be redone.
    @Test func eachBatchOfChangesIsOneStep() throws {
        let dir = TempDirectory("undo-steps")
        let context = try Self.container(dir.file("Library.sqlite")).newBackgroundContext()
        try context.performAndWait {
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            book.setValue("a", forKey: "title")
            try context.save()
            context.undoManager = UndoManager()
            book.setValue("b", forKey: "title")
            context.processPendingChanges()
            book.setValue("c", forKey: "title")
            book.setValue("d", forKey: "title")
            context.processPendingChanges()
            context.undo()
            #expect(Self.title(book) == "b")
            #expect(context.hasChanges)
            context.undo()
            #expect(Self.title(book) == "a")
            // Back to its saved values: unchanged, as before the first change.
            #expect(!context.hasChanges)
            #expect(context.updatedObjects.isEmpty)
            context.redo()
            #expect(Self.title(book) == "b")
            #expect(context.updatedObjects.count == 1)
            book.setValue("e", forKey: "title")
            context.processPendingChanges()
            #expect(context.undoManager?.canRedo == false)
            context.undo()
            #expect(Self.title(book) == "b")
        }
    }

    /// A relationship change undone puts both sides back: the book on its old shelf, and
    /// each shelf's `items` as before.
    @Test func undoingARelationshipChangeRestoresBothSides() throws {
        let dir = TempDirectory("undo-relationship")
        let context = try Self.container(dir.file("Library.sqlite")).newBackgroundContext()
        try context.performAndWait {
            let left = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
            left.setValue("left", forKey: "name")
            let right = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
            right.setValue("right", forKey: "name")
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            book.setValue(left, forKey: "shelf")
            try context.save()
            context.undoManager = UndoManager()
            book.setValue(right, forKey: "shelf")
            #expect((right.value(forKey: "items") as? NSSet)?.count == 1)
            context.undo()
            #expect(book.value(forKey: "shelf") as? NSManagedObject === left)
            #expect((left.value(forKey: "items") as? NSSet)?.count == 1)
            #expect((right.value(forKey: "items") as? NSSet)?.count == 0)
            #expect(!context.hasChanges)
            context.redo()
            #expect(book.value(forKey: "shelf") as? NSManagedObject === right)
            #expect((left.value(forKey: "items") as? NSSet)?.count == 0)
        }
    }

    /// A delete undone, with what its cascade rule deleted; the save after keeps every row.
    @Test func undoingADeleteBringsBackWhatItCascadedTo() throws {
        let dir = TempDirectory("undo-delete")
        let model = NotesModel.make()
        try #require(model.entitiesByName["Folder"]?.relationshipsByName["notes"]).deleteRule = .cascadeDeleteRule
        let container = try NotesModel.container(in: dir, model: model)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let folder = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: context)
            folder.setValue("kept", forKey: "name")
            let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
            note.setValue(folder, forKey: "folder")
            try context.save()
            context.undoManager = UndoManager()
            context.delete(folder)
            context.processPendingChanges()
            #expect(context.deletedObjects.count == 2)
            context.undo()
            #expect(context.deletedObjects.isEmpty)
            #expect(!folder.isDeleted && !note.isDeleted)
            #expect(note.value(forKey: "folder") as? NSManagedObject === folder)
            try context.save()
        }
        let fresh = container.newBackgroundContext()
        let counts = try fresh.performAndWait {
            (try fresh.count(for: NSFetchRequest<NSManagedObject>(entityName: "Folder")), try fresh.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note")))
        }
        #expect(counts == (1, 1))
    }

    /// Undo goes on past a save, as in Core Data: undoing a saved insert deletes the
    /// object, undoing a saved change puts the old value back as an unsaved change, and
    /// undoing a saved delete inserts the object again.
    @Test func undoAfterASaveMakesTheOppositeChange() throws {
        let dir = TempDirectory("undo-after-save")
        let url = dir.file("Library.sqlite")
        let context = try Self.container(url).newBackgroundContext()
        context.undoManager = UndoManager()
        try context.performAndWait {
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            book.setValue("first", forKey: "title")
            try context.save()
            book.setValue("second", forKey: "title")
            try context.save()
            context.undo()
            #expect(Self.title(book) == "first")
            #expect(context.updatedObjects.count == 1)
            try context.save()
        }
        #expect(try Self.titles(in: url) == ["first"])
        try context.performAndWait {
            // The undo stack now holds the insert (with its title): undo it, saved.
            context.undo()
            #expect(context.deletedObjects.count == 1)
            try context.save()
        }
        #expect(try Self.titles(in: url) == [])
        try context.performAndWait {
            context.redo()
            #expect(context.insertedObjects.count == 1)
            try context.save()
        }
        #expect(try Self.titles(in: url) == ["first"])
    }

    /// An app's own group around several batches undoes them as one (the pattern of
    /// mac-cain13/CoreDataKit's `perform(block:)`: begin, the block's changes, end).
    @Test func anAppGroupUndoesAsOne() throws {
        let dir = TempDirectory("undo-group")
        let context = try Self.container(dir.file("Library.sqlite")).newBackgroundContext()
        context.undoManager = UndoManager()
        context.performAndWait {
            context.undoManager?.beginUndoGrouping()
            Self.fillWithSampleData(context)
            context.processPendingChanges()
            let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
            shelf.setValue("s", forKey: "name")
            context.undoManager?.setActionName("Fill")
            context.undoManager?.endUndoGrouping()
            #expect(context.undoManager?.undoMenuItemTitle == "Undo Fill")
            context.undo()
            #expect(context.insertedObjects.isEmpty)
            #expect(context.undoManager?.redoActionName == "Fill")
        }
    }

    /// Many-to-many links, unsaved and saved, undone.
    @Test func undoingManyToManyLinks() throws {
        let dir = TempDirectory("undo-m2m")
        let url = dir.file("Blog.sqlite")
        let container = try ManyToManyTests.container(url)
        let c = container.newBackgroundContext()
        try c.performAndWait {
            let post = NSEntityDescription.insertNewObject(forEntityName: "Post", into: c)
            post.setValue("p", forKey: "title")
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: c)
            tag.setValue("t", forKey: "name")
            try c.save()
            c.undoManager = UndoManager()
            post.mutableSetValue(forKey: "tags").add(tag)
            try c.save()
            #expect(try ManyToManyTests.links(url).count == 1)
            c.undo()
            #expect(ManyToManyTests.names(post.value(forKey: "tags"), "name").isEmpty)
            try c.save()
            #expect(try ManyToManyTests.links(url).isEmpty)
            c.redo()
            #expect(ManyToManyTests.names(tag.value(forKey: "posts"), "title") == ["p"])
            try c.save()
            #expect(try ManyToManyTests.links(url).count == 1)
        }
    }
}

/// The undo manager itself, as Apple documents NSUndoManager.
@Suite struct UndoManagerTests {
    final class Box { var value = 0 }

    static func set(_ box: Box, _ value: Int, _ manager: UndoManager) {
        let old = box.value
        box.value = value
        manager.registerUndo(withTarget: box) { box in set(box, old, manager) }
    }

    @Test func registrationGroupsNestAndRedoClears() {
        let manager = UndoManager()
        let box = Box()
        manager.beginUndoGrouping()
        Self.set(box, 1, manager)
        manager.beginUndoGrouping()
        Self.set(box, 2, manager)
        manager.endUndoGrouping()
        manager.endUndoGrouping()
        manager.beginUndoGrouping()
        manager.endUndoGrouping()  // an empty group is dropped
        #expect(manager.canUndo)
        manager.undo()
        #expect(box.value == 0)  // the nested group undid with its parent
        #expect(!manager.canUndo && manager.canRedo)
        manager.redo()
        #expect(box.value == 2)
        manager.undo()
        Self.set(box, 5, manager)  // opens a group by event; clears the redo stack
        #expect(!manager.canRedo)
        #expect(manager.groupingLevel == 1)
        manager.undo()  // closes the event's group first
        #expect(box.value == 0 && manager.groupingLevel == 0)
    }

    @Test func levelsOfUndoKeepsTheNewestAndDisablingStopsRegistration() {
        let manager = UndoManager()
        manager.levelsOfUndo = 2
        let box = Box()
        for v in 1...4 {
            manager.beginUndoGrouping()
            Self.set(box, v, manager)
            manager.endUndoGrouping()
        }
        manager.undo()
        manager.undo()
        #expect(box.value == 2 && !manager.canUndo)
        manager.disableUndoRegistration()
        manager.beginUndoGrouping()
        Self.set(box, 9, manager)
        manager.endUndoGrouping()
        manager.enableUndoRegistration()
        #expect(manager.isUndoRegistrationEnabled)
        manager.undo()
        #expect(box.value == 9)
    }
}
