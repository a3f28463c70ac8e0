import CoreData

final class Record: NSManagedObject {
    @NSManaged var payload: Data?
}

/// A context is told apart by its owner and its name: `self.backgroundContext` and
/// `other.backgroundContext` are two contexts, each on its own queue.
final class Replica {
    let backgroundContext: NSManagedObjectContext

    init(container: NSPersistentContainer) {
        backgroundContext = container.newBackgroundContext()
    }

    // context-without-perform, the bug: inside the other replica's perform, this
    // replica's context is used off its own queue.
    func adopt(from other: Replica) {
        other.backgroundContext.perform {
            let records = (try? other.backgroundContext.fetch(NSFetchRequest<Record>(entityName: "Record"))) ?? []
            let payloads = records.map(\.payload)
            try? self.backgroundContext.save() // expect: context-without-perform
            print(payloads.count)
        }
    }

    // The correct twin: each context inside its own perform.
    func adoptFixed(from other: Replica) {
        other.backgroundContext.perform {
            let records = (try? other.backgroundContext.fetch(NSFetchRequest<Record>(entityName: "Record"))) ?? []
            let payloads = records.map(\.payload)
            self.backgroundContext.perform {
                for payload in payloads {
                    let copy = Record(context: self.backgroundContext)
                    copy.payload = payload
                }
                try? self.backgroundContext.save()
            }
        }
    }

    // Silent: its own context, reached as `self.backgroundContext` and as
    // `backgroundContext`, is one context.
    func flush() {
        backgroundContext.perform {
            try? self.backgroundContext.save()
        }
    }

    // Silent: a local that holds another instance may hold this one; only a parameter
    // is told apart from `self`.
    func flushVia(_ replicas: [Replica]) {
        guard let first = replicas.first else { return }
        first.backgroundContext.perform {
            try? self.backgroundContext.save()
        }
    }
}
