// The fixed twin of ../bug/WatchSessionManager.swift.txt (gdombiak/OctoPod b440db8):
// the delegate looks the printer up in a context of its own, inside performAndWait.
import CoreData
import WatchConnectivity

final class Printer: NSManagedObject {
    @NSManaged var name: String
    @NSManaged var hostname: String
    @NSManaged var defaultPrinter: Bool
}

final class PrinterManager {
    let container: NSPersistentContainer
    let managedObjectContext: NSManagedObjectContext

    init(container: NSPersistentContainer) {
        self.container = container
        managedObjectContext = container.viewContext
    }

    func safePrivateContext() -> NSManagedObjectContext {
        Thread.isMainThread ? managedObjectContext : container.newBackgroundContext()
    }

    func getDefaultPrinter() -> Printer? {
        getDefaultPrinter(context: managedObjectContext)
    }

    func getDefaultPrinter(context: NSManagedObjectContext) -> Printer? {
        let request = NSFetchRequest<Printer>(entityName: "Printer")
        request.predicate = NSPredicate(format: "defaultPrinter == YES")
        return (try? context.fetch(request))?.first
    }
}

final class WatchSessionManager: NSObject, WCSessionDelegate {
    let printerManager: PrinterManager

    init(printerManager: PrinterManager) {
        self.printerManager = printerManager
    }

    func session(_ session: WCSession, didReceiveMessage message: [String: Any], replyHandler: @escaping ([String: Any]) -> Void) {
        guard let printerName = message["printer"] as? String else { return }
        var reply: [String: Any] = [:]
        let context = printerManager.safePrivateContext()
        context.performAndWait {
            if let printer = printerManager.getDefaultPrinter(context: context), printer.name == printerName {
                reply["hostname"] = printer.hostname
            }
        }
        replyHandler(reply)
    }

    func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {}
    func sessionDidBecomeInactive(_ session: WCSession) {}
    func sessionDidDeactivate(_ session: WCSession) {}
}
