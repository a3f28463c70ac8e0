import CoreData
import Foundation

/// Functions whose only callers run on a private context's queue (performBackgroundTask's
/// block, or perform { } of a private context the caller made), or on a background
/// queue the code made, run there too.
final class LedgerEntry: NSManagedObject {
    @NSManaged var amount: Int64
    @NSManaged var order: Int64
}

final class LedgerStore {
    static let shared = LedgerStore()
    let container = NSPersistentContainer(name: "Ledger")
    let journalContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    private let importQueue = DispatchQueue(label: "ledger.import")

    func newImportContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.parent = container.viewContext
        return context
    }

    // context-without-perform, the bug: called only on a queue the store made with
    // DispatchQueue(label:), the helper fetches from the private journal context
    // outside its perform.
    func compact() {
        importQueue.async {
            self.compactJournal()
        }
    }

    private func compactJournal() {
        let old = (try? journalContext.fetch(NSFetchRequest<LedgerEntry>(entityName: "LedgerEntry"))) ?? [] // expect: context-without-perform
        _ = old.count
    }

    // The correct twin.
    func compactFixed() {
        importQueue.async {
            self.compactJournalFixed()
        }
    }

    private func compactJournalFixed() {
        journalContext.performAndWait {
            let old = (try? journalContext.fetch(NSFetchRequest<LedgerEntry>(entityName: "LedgerEntry"))) ?? []
            _ = old.count
        }
    }
}

extension LedgerEntry {
    // main-context-off-main-queue, the bug: called only inside performBackgroundTask's
    // block, the helper counts on the view context, on that private queue.
    static func append(amount: Int64, in context: NSManagedObjectContext) {
        let count = (try? LedgerStore.shared.container.viewContext.count(for: NSFetchRequest<LedgerEntry>(entityName: "LedgerEntry"))) ?? 0 // expect: main-context-off-main-queue
        let entry = LedgerEntry(context: context)
        entry.amount = amount
        entry.order = Int64(count)
    }

    // The correct twin: it counts on the context it is handed.
    static func appendFixed(amount: Int64, in context: NSManagedObjectContext) {
        let count = (try? context.count(for: NSFetchRequest<LedgerEntry>(entityName: "LedgerEntry"))) ?? 0
        let entry = LedgerEntry(context: context)
        entry.amount = amount
        entry.order = Int64(count)
    }
}

final class LedgerImporter {
    let store = LedgerStore.shared

    func importAmounts(_ amounts: [Int64]) {
        store.container.performBackgroundTask { context in
            for amount in amounts { LedgerEntry.append(amount: amount, in: context) }
            try? context.save()
        }
    }

    func importAmountsFixed(_ amounts: [Int64]) {
        store.container.performBackgroundTask { context in
            for amount in amounts { LedgerEntry.appendFixed(amount: amount, in: context) }
            try? context.save()
        }
    }

    // main-context-off-main-queue, the bug: called only inside perform { } of a private
    // context the caller made, one call deeper.
    func rebuild() {
        let importContext = store.newImportContext()
        importContext.perform {
            self.rebuildEntries(in: importContext)
            try? importContext.save()
        }
    }

    private func rebuildEntries(in context: NSManagedObjectContext) {
        clearShownEntries()
        _ = LedgerEntry(context: context)
    }

    private func clearShownEntries() {
        let viewContext = store.container.viewContext
        let shown = (try? viewContext.fetch(NSFetchRequest<LedgerEntry>(entityName: "LedgerEntry"))) ?? [] // expect: main-context-off-main-queue
        shown.forEach(viewContext.delete)
    }

    // The correct twin: called only inside performAndWait { }, which runs its block on
    // the caller's thread (the main thread, when the caller is there): silent.
    func rebuildFixed() {
        let importContext = store.newImportContext()
        importContext.performAndWait {
            self.countShownEntries()
            try? importContext.save()
        }
    }

    private func countShownEntries() {
        _ = try? store.container.viewContext.count(for: NSFetchRequest<LedgerEntry>(entityName: "LedgerEntry"))
    }
}
