// The fixed twin of ../bug/BackgroundRefresher.swift.txt (gdombiak/OctoPod ca65ffc): the
// printer is fetched and read inside the private context's performAndWait; only its
// values leave the context's queue.
import CoreData
import Foundation

final class Printer: NSManagedObject {
    @NSManaged var name: String
    @NSManaged var octopodPluginInstalled: Bool
    @NSManaged var defaultPrinter: Bool
}

final class PrinterManager {
    let persistentContainer: NSPersistentContainer

    init(persistentContainer: NSPersistentContainer) {
        self.persistentContainer = persistentContainer
    }

    func newPrivateContext() -> NSManagedObjectContext {
        persistentContainer.newBackgroundContext()
    }

    func getDefaultPrinter(context: NSManagedObjectContext) -> Printer? {
        let request = NSFetchRequest<Printer>(entityName: "Printer")
        request.predicate = NSPredicate(format: "defaultPrinter == YES")
        request.fetchLimit = 1
        return (try? context.fetch(request))?.first
    }
}

final class BackgroundRefresher {
    let printerManager: PrinterManager

    init(printerManager: PrinterManager) {
        self.printerManager = printerManager
    }

    func printerStateUpdated(state: String) {
        let context = printerManager.newPrivateContext()
        var values: (name: String, pluginInstalled: Bool)?
        context.performAndWait {
            if let printer = printerManager.getDefaultPrinter(context: context) {
                values = (printer.name, printer.octopodPluginInstalled)
            }
        }
        if let values {
            pushComplicationUpdate(printerName: values.name, pluginInstalled: values.pluginInstalled, state: state)
        }
    }

    func pushComplicationUpdate(printerName: String, pluginInstalled: Bool, state: String) {
        print(printerName, pluginInstalled, state)
    }
}
