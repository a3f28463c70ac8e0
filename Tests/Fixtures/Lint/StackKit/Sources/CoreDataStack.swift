import CoreData
import Foundation

/// A small Core Data stack library: a main-queue context for the UI and a private
/// background context, both on one coordinator.
public final class CoreDataStack {
    public let mainContext: NSManagedObjectContext
    public let backgroundContext: NSManagedObjectContext
    public let coordinator: NSPersistentStoreCoordinator

    public init(coordinator: NSPersistentStoreCoordinator) {
        self.coordinator = coordinator
        mainContext = CoreDataStack.makeContext(concurrencyType: .mainQueueConcurrencyType, coordinator: coordinator)
        backgroundContext = CoreDataStack.makeContext(concurrencyType: .privateQueueConcurrencyType, coordinator: coordinator)
    }

    static func makeContext(concurrencyType: NSManagedObjectContextConcurrencyType, coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: concurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Refuses a context this library cannot serve: the confinement type has no queue.
    /// confinement-type, the false alarm it must not raise: a case label and a
    /// comparison name the type without making a context.
    public static func adopt(_ context: NSManagedObjectContext) -> NSManagedObjectContext {
        switch context.concurrencyType {
        case .confinementConcurrencyType:
            fatalError("CoreDataStack cannot use a confinement context")
        case .mainQueueConcurrencyType, .privateQueueConcurrencyType:
            break
        @unknown default:
            break
        }
        precondition(context.concurrencyType != .confinementConcurrencyType, "no confinement contexts")
        return context
    }

    /// confinement-type, the bug the rule is for: a context made with that type.
    public static func legacyContext() -> NSManagedObjectContext {
        NSManagedObjectContext(concurrencyType: .confinementConcurrencyType) // expect: confinement-type
    }
}

final class Employee: NSManagedObject {
    @NSManaged var name: String
    @NSManaged var salary: Int64
}
