// A test-only program for `ctxdebug explore` end to end (ExploreCommandTests): a real
// ManagedContext stack on a real SQLite file, explored through the runtime's own child
// side of the protocol. Usage: ctxdebug-explore-sample MODE
//   lost-update  two private contexts each read the counter, add one and save
//                (mergeByPropertyObjectTrump): FIFO order gives 2, a schedule that lets
//                both read before either saves gives 1, and the program exits 1
//   fixed        both increments on one context: its queue runs them one after the
//                other, so every schedule gives 2
//   changed      lost-update after a read on a third context: the schedule of
//                lost-update no longer fits
// Run it under `ctxdebug explore` only: outside a run `drain()` does not wait.
import ConcurrencyDebugTesting
import Foundation
import ManagedContext

final class Counter: ManagedObject {
    @Attribute("value") var value: Int64? = 0
}

let mode = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "lost-update"
let directory = NSTemporaryDirectory() + "/ctxdebug-explore-sample-\(getpid())-\(UUID().uuidString.prefix(8))"
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }

let coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [Counter.self]))
try coordinator.addPersistentStore(at: URL(fileURLWithPath: directory + "/Counter.sqlite"))

func context(_ name: String) -> ManagedObjectContext {
    let context = ManagedObjectContext(concurrencyType: .privateQueue)
    context.persistentStoreCoordinator = coordinator
    context.name = name
    context.mergePolicy = .mergeByPropertyObjectTrump
    return context
}

func increment(on context: ManagedObjectContext) {
    context.perform {
        let counter = try! context.fetch(FetchRequest<Counter>()).first!
        counter.value = (counter.value ?? 0) + 1
        try! context.save()
    }
}

let seed = context("seed")
try seed.performAndWait {
    Counter(context: seed).value = 0
    try seed.save()
}
if mode == "changed" {
    let extra = context("extra")
    _ = try extra.performAndWait { try extra.fetch(FetchRequest<Counter>()).count }
}
if mode == "fixed" {
    let shared = context("shared")
    increment(on: shared)
    increment(on: shared)
} else {
    increment(on: context("a"))
    increment(on: context("b"))
}
drain()
let reader = context("reader")
let value = try reader.performAndWait { try reader.fetch(FetchRequest<Counter>()).first!.value ?? -1 }
if value != 2 {
    FileHandle.standardError.write(Data("lost update: two increments left the counter at \(value)\n".utf8))
    exit(1)
}
print("counter: \(value)")
