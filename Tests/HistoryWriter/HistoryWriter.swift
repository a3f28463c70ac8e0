import CoreData
import Foundation

/// `ctxdebug-history-writer`: a test-only executable (built by `swift build
/// --build-tests`) for the cross-process persistent history tests
/// (Tests/CoreDataTests/RemoteChangeTests.swift): the other process of an app and its
/// extension sharing one store. It opens the store with persistent history tracking and
/// remote-change notifications, as the app does, renames the note titled `--from` to
/// `--to` (or inserts a note titled `--to` when `--from` is empty) in a context whose
/// `transactionAuthor` is `--author`, saves once, prints the transaction's token
/// number and exits.
///
///     ctxdebug-history-writer --store PATH --from OLD --to NEW --author NAME
@main
enum HistoryWriter {
    static func main() {
        var options: [String: String] = [:]
        var arguments = CommandLine.arguments.dropFirst()
        while let key = arguments.popFirst() {
            guard key.hasPrefix("--"), let value = arguments.popFirst() else { fail("expected --name value pairs, got \(key)") }
            options[String(key.dropFirst(2))] = value
        }
        guard let store = options["store"], let to = options["to"] else { fail("usage: --store PATH [--from OLD] --to NEW [--author NAME]") }
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: historyNotesModel())
            _ = try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: store),
                options: [NSPersistentHistoryTrackingKey: true, NSPersistentStoreRemoteChangeNotificationPostOptionKey: true])
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            context.name = "writer"
            context.transactionAuthor = options["author"]
            try context.performAndWait {
                if let from = options["from"], !from.isEmpty {
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
                    request.predicate = NSPredicate(format: "title == %@", from)
                    guard let note = try context.fetch(request).first else { fail("no note titled \(from)") }
                    note.setValue(to, forKey: "title")
                } else {
                    NSEntityDescription.insertNewObject(forEntityName: "Note", into: context).setValue(to, forKey: "title")
                }
                try context.save()
            }
            print("saved \(coordinator.currentPersistentHistoryToken(fromStores: nil)?.transactionNumber ?? 0)")
        } catch {
            fail("\(error)")
        }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("ctxdebug-history-writer: \(message)\n".utf8))
        exit(1)
    }
}

/// The model both processes open: one entity, Note, with a title (RemoteChangeTests has its twin).
func historyNotesModel() -> NSManagedObjectModel {
    let title = NSAttributeDescription()
    title.name = "title"
    title.attributeType = .stringAttributeType
    title.isOptional = true
    let note = NSEntityDescription()
    note.name = "Note"
    note.managedObjectClassName = "NSManagedObject"
    note.properties = [title]
    let model = NSManagedObjectModel()
    model.entities = [note]
    return model
}
