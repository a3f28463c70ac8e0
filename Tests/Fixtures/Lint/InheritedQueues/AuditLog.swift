import CoreData
import Foundation

/// A private context property that no code in the project performs on, keeps in a local
/// or hands on (and not public): no caller can be inside its perform, so a straight use
/// is outside it, whoever calls the method.
final class AuditEntry: NSManagedObject {
    @NSManaged var text: String?
}

final class AuditLog {
    private let logContext: NSManagedObjectContext

    init(container: NSPersistentContainer) {
        logContext = container.newBackgroundContext()
    }

    // context-without-perform, the bug: the method has no caller in the project (a
    // library's entry point), but nothing can be inside logContext's perform.
    func record(_ text: String) {
        let entry = AuditEntry(context: logContext) // expect: context-without-perform
        entry.text = text // expect: context-without-perform
        try? logContext.save() // expect: context-without-perform
    }
}

// The correct twin: the context is used inside its own perform.
final class AuditLogFixed {
    private let auditContext: NSManagedObjectContext

    init(container: NSPersistentContainer) {
        auditContext = container.newBackgroundContext()
    }

    func record(_ text: String) {
        auditContext.perform {
            let entry = AuditEntry(context: self.auditContext)
            entry.text = text
            try? self.auditContext.save()
        }
    }
}

/// Code Core Data itself calls on a context's queue is not judged by "nothing performs
/// on it": a managed object's willSave runs on its context's queue.
final class AuditTrail: NSManagedObject {
    @NSManaged var note: String?
    private let trailContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)

    override func willSave() {
        super.willSave()
        _ = trailContext.hasChanges
    }
}
