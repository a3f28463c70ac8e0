import CoreData

/// Keeps downloaded deliveries. `savingContext` (CacheStack.swift) is a new private
/// context at each read: nothing can be inside its perform but this code's own.
final class DeliveryCache {
    lazy var stack = CacheStack()

    // The bug: the new private context is fetched from, changed and saved straight
    // from the caller's queue, outside its perform.
    func clear() {
        let context = stack.savingContext
        let request = NSFetchRequest<DeliveryRecord>(entityName: "DeliveryRecord")
        let records = (try? context.fetch(request)) ?? [] // expect: context-without-perform
        records.forEach { context.delete($0) } // expect: context-without-perform
        try? context.save() // expect: context-without-perform
    }

    // The correct twin.
    func clearFixed() {
        let context = stack.savingContext
        context.perform {
            let request = NSFetchRequest<DeliveryRecord>(entityName: "DeliveryRecord")
            let records = (try? context.fetch(request)) ?? []
            records.forEach { context.delete($0) }
            try? context.save()
        }
    }

    // Silent: the shared context is one context, kept; a caller may be inside its
    // perform.
    func store(_ codes: [String]) {
        let context = stack.sharedContext
        for code in codes {
            let record = DeliveryRecord(context: context)
            record.code = code
        }
        try? context.save()
    }
}

extension DeliveryCache {
    // The bug, written with optionals: the fetch and the delete are reported, and
    // `map` on the optional array is no property of an object.
    func purge() {
        let context = stack.savingContext
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "DeliveryRecord")
        let objects = try? context.fetch(request) as? [NSManagedObject] // expect: context-without-perform
        _ = objects.map { $0.map { context.delete($0) } } // expect: context-without-perform
    }
}
