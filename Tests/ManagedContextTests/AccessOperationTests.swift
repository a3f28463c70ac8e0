@_spi(Runtime) import ConcurrencyDebug
import Testing
@_spi(Runtime) import ManagedContext

/// ManagedContext's operations: Core Data's words live here, not in the checker, under
/// the numbers the journal has always stored for them (docs/journal-format.md).
@Suite struct AccessOperationTests {
    /// The journal's operation table as format version 1 fixed it, and the numbers added
    /// since (undo and redo).
    static let journalTable: [UInt8: String] = [
        1: "get", 2: "set", 3: "fire fault", 4: "fetch", 5: "count", 6: "insert", 7: "delete", 8: "save",
        9: "rollback", 10: "reset", 11: "refresh", 12: "object(with:)", 13: "existingObject(with:)",
        14: "registeredObject(for:)", 15: "obtainPermanentIDs(for:)", 16: "hasChanges",
        17: "inserted/updated/deletedObjects", 18: "mergeChanges(fromContextDidSave:)", 19: "perform", 20: "access",
        21: "undo", 22: "redo",
    ]

    @Test func registeredNamesKeepTheJournalsNumbers() {
        ManagedContextOperations.register()
        var table: [UInt8: String] = [1: AccessOperation.get.description, 2: AccessOperation.set.description, 20: AccessOperation.other.description]
        for (operation, name) in ManagedContextOperations.names {
            #expect(table[operation.rawValue] == nil, "\(operation.rawValue) named twice")
            table[operation.rawValue] = name
            #expect(operation.description == name)
        }
        #expect(table == Self.journalTable)
        #expect(AccessOperation.fetch.rawValue == 4 && AccessOperation.obtainPermanentIDs.rawValue == 15)
        #expect(AccessOperation.fetch.isContextMethod && !AccessOperation.fireFault.isContextMethod)
    }

    @Test func creatingAContextRegistersTheNames() {
        _ = ManagedObjectContext(concurrencyType: .privateQueue)
        #expect(AccessOperation.save.isRegistered)
        #expect(AccessOperation.merge.description == "mergeChanges(fromContextDidSave:)")
    }
}
