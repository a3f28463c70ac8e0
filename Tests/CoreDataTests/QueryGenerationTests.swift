import Foundation
import Testing
import TestSupport

@testable import CoreData

/// Query generations, as Apple's article "Accessing data when the store changes" has them:
/// "Whenever you read from a context, you see the same generation, or snapshot, of data
/// until you choose to advance it to a later generation"; the store must be SQLite in WAL
/// mode ("Query generations leverage WAL mode to let you query against the historical
/// state of the database"). `setQueryGenerationFrom(_:)` "Sets the query generation this
/// context should use"; `queryGenerationToken` "Returns the token associated with the
/// query generation currently in use by this context". A pinned context moves to the
/// latest generation when it saves, merges a save or is reset.
@Suite struct QueryGenerationTests {
    static func titles(_ c: NSManagedObjectContext) throws -> [String] {
        let r = NSFetchRequest<NSManagedObject>(entityName: "Note")
        r.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        return try c.fetch(r).compactMap { $0.value(forKey: "title") as? String }
    }

    static func insert(_ title: String, into c: NSManagedObjectContext) throws {
        try c.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Note", into: c).setValue(title, forKey: "title")
            try c.save()
        }
    }

    @Test func aPinnedContextReadsItsGenerationUntilUnpinned() throws {
        let dir = TempDirectory("query-generation")
        let container = try NotesModel.container(in: dir)
        let writer = container.newBackgroundContext()
        try Self.insert("a", into: writer)
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            #expect(reader.queryGenerationToken == nil)
            try reader.setQueryGenerationFrom(.current)
            #expect(reader.queryGenerationToken != nil)
            // A fault of an object changed later still reads the pinned row.
            let note = try #require(try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).first)
            #expect(note.isFault)
            try writer.performAndWait {
                let mine = try #require(try writer.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).first)
                mine.setValue("a2", forKey: "title")
                NSEntityDescription.insertNewObject(forEntityName: "Note", into: writer).setValue("b", forKey: "title")
                try writer.save()
            }
            #expect(note.value(forKey: "title") as? String == "a")
            #expect(try Self.titles(reader) == ["a"])
            #expect(try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note")) == 1)
            try reader.setQueryGenerationFrom(nil)
            #expect(reader.queryGenerationToken == nil)
            reader.refreshAllObjects()
            #expect(try Self.titles(reader) == ["a2", "b"])
        }
    }

    @Test func savingOrResettingMovesItToTheLatest() throws {
        let dir = TempDirectory("query-generation-advance")
        let container = try NotesModel.container(in: dir)
        let writer = container.newBackgroundContext()
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            try reader.setQueryGenerationFrom(.current)
            let before = try #require(reader.queryGenerationToken)
            try Self.insert("a", into: writer)
            #expect(try Self.titles(reader).isEmpty)
            reader.reset()
            #expect(try Self.titles(reader) == ["a"])
            #expect(reader.queryGenerationToken != nil && reader.queryGenerationToken != before)
            try Self.insert("b", into: writer)
            #expect(try Self.titles(reader) == ["a"])
            NSEntityDescription.insertNewObject(forEntityName: "Note", into: reader).setValue("c", forKey: "title")
            try reader.save()
            #expect(try Self.titles(reader) == ["a", "b", "c"])
        }
    }

    @Test func aTokenPinsAnotherContextToTheSameGeneration() throws {
        let dir = TempDirectory("query-generation-token")
        let container = try NotesModel.container(in: dir)
        let writer = container.newBackgroundContext()
        try Self.insert("a", into: writer)
        let first = container.newBackgroundContext()
        let token = try first.performAndWait {
            try first.setQueryGenerationFrom(.current)
            return try #require(first.queryGenerationToken)
        }
        try Self.insert("b", into: writer)
        let second = container.newBackgroundContext()
        try second.performAndWait {
            try second.setQueryGenerationFrom(token)
            #expect(second.queryGenerationToken == token)
            #expect(try Self.titles(second) == ["a"])
        }
        let otherDir = TempDirectory("query-generation-other")
        let other = try NotesModel.container(in: otherDir).newBackgroundContext()
        other.performAndWait {
            #expect(throws: (any Error).self) { try other.setQueryGenerationFrom(token) }
        }
    }
}
