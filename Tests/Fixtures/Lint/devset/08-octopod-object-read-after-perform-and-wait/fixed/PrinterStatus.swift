// The fixed twin of ../bug/PrinterStatus.swift.txt (gdombiak/OctoPod 6a28f75): the
// flag is read inside performAndWait; only a Bool leaves the context's queue.
import CoreData
import Foundation

final class Printer: NSManagedObject {
    @NSManaged var name: String
    @NSManaged var printTimeGeniusInstalled: Bool
}

struct StateEvent {
    var printerURL: String
    var printTime: Int?
    var printTimeLeft: Int?
    var completion: Double?
}

final class PrinterManager {
    let container: NSPersistentContainer
    let managedObjectContext: NSManagedObjectContext

    init(container: NSPersistentContainer) {
        self.container = container
        managedObjectContext = container.viewContext
    }

    func newPrivateContext() -> NSManagedObjectContext {
        container.newBackgroundContext()
    }

    /// The main context on the main thread, a new private one elsewhere.
    func safePrivateContext() -> NSManagedObjectContext {
        Thread.isMainThread ? managedObjectContext : newPrivateContext()
    }

    func isPrintTimeGeniusInstalled(at url: URL, in context: NSManagedObjectContext) -> Bool {
        var installed = false
        context.performAndWait {
            if let id = context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: url),
               let printer = context.object(with: id) as? Printer {
                installed = printer.printTimeGeniusInstalled
            }
        }
        return installed
    }
}

/// Receives the printer's state from its web socket, on the socket's queue.
final class PrinterClient {
    let printerManager: PrinterManager

    init(printerManager: PrinterManager) {
        self.printerManager = printerManager
    }

    func currentStateUpdated(event: StateEvent) -> StateEvent {
        var event = event
        if let url = URL(string: event.printerURL),
           printerManager.isPrintTimeGeniusInstalled(at: url, in: printerManager.safePrivateContext()) {
            if let done = event.printTime, let left = event.printTimeLeft, left > 0 {
                event.completion = Double(done) / Double(done + left) * 100
            }
        }
        return event
    }
}
