import CoreData
import UIKit

/// A helper that reads its context parameter's state (`context.hasChanges`) straight in
/// its body uses the context it is handed, as one that fetches or saves it does.
func saveIfNeeded(_ context: NSManagedObjectContext) {
    guard context.hasChanges else { return }
    context.perform { try? context.save() }
}

func saveIfNeededFixed(_ context: NSManagedObjectContext) {
    context.perform {
        guard context.hasChanges else { return }
        try? context.save()
    }
}

final class OutboxViewController: UIViewController {
    let outboxContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)

    // context-without-perform, the bug: on the main queue, the helper reads the private
    // context's hasChanges outside its perform.
    @IBAction func flush(_ sender: Any) {
        saveIfNeeded(outboxContext) // expect: context-without-perform
    }

    // The correct twin: the helper reads it inside perform.
    @IBAction func flushFixed(_ sender: Any) {
        saveIfNeededFixed(outboxContext)
    }
}
