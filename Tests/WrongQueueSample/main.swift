// A test-only program for the ways checking is turned on (CheckingSwitchTests): one
// wrong-queue access, a private context's object read on the main thread outside
// `perform`. It runs to the end (exit 0, "done" on stdout) when checking is off and
// stops at the access (SIGTRAP) when any documented switch turns checking on:
// CTXDEBUG_CONCURRENCY, Core Data's `com.apple.CoreData.ConcurrencyDebug` variable or
// its `-com.apple.CoreData.ConcurrencyDebug N` launch argument, CTXDEBUG_JOURNAL alone.
// Its arguments are ignored but for the launch argument, which the checker reads.
import Foundation
import ManagedContext

final class Note: ManagedObject {
    @Attribute("title") var title: String?
}

let directory = NSTemporaryDirectory() + "/ctxdebug-wrong-queue-\(getpid())-\(UUID().uuidString.prefix(8))"
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }

let coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [Note.self]))
try coordinator.addPersistentStore(at: URL(fileURLWithPath: directory + "/Notes.sqlite"))
let background = ManagedObjectContext(concurrencyType: .privateQueue)
background.persistentStoreCoordinator = coordinator
background.name = "background"
let note = background.performAndWait {
    let note = Note(context: background)
    note.title = "made on the context's queue"
    return note
}
// The access: on the main thread, outside the private context's perform.
let title = note.title ?? ""
print("done: \(title)")
