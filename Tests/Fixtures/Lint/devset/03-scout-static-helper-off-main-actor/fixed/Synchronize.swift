// The fixed twin of ../bug/Synchronize.swift.txt (kasianov-mikhail/scout #753): the
// static helper runs on the main actor, and the background task awaits it there.
@preconcurrency import CoreData
import Foundation

final class DeliveryRecord: NSManagedObject {
    @NSManaged var backendID: String
    @NSManaged var attempts: Int16
}

protocol Backend: Sendable {
    var id: String { get }
    func isAvailable() async -> Bool
}

enum DeliveryLedger {
    /// One shared attempt per sync cycle for every pending delivery of the backend.
    @MainActor static func recordAttempt(for backendID: String, in context: NSManagedObjectContext) {
        let request = NSFetchRequest<DeliveryRecord>(entityName: "DeliveryRecord")
        request.predicate = NSPredicate(format: "backendID == %@", backendID)
        for record in (try? context.fetch(request)) ?? [] {
            record.attempts += 1
        }
        try? context.save()
    }
}

struct Dispatcher {
    /// Runs `body` in a detached background task and waits for it.
    func performInBackground(_ body: @escaping @Sendable () async -> Void) async {
        await Task.detached(priority: .background, operation: body).value
    }
}

@MainActor
func synchronize(backends: [any Backend], container: NSPersistentContainer, dispatcher: Dispatcher) async {
    let context = container.viewContext
    await dispatcher.performInBackground {
        for backend in backends where await backend.isAvailable() {
            await DeliveryLedger.recordAttempt(for: backend.id, in: context)
        }
    }
}
