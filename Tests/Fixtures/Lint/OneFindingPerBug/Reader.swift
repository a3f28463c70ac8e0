import CoreData
import Foundation

final class Entry: NSManagedObject {
    @NSManaged var title: String?
}

/// One bug, one finding: when the rules that judge where code runs both see the same
/// wrong access on a line, the more specific one reports it and names the other.
final class Reader {
    let container: NSPersistentContainer

    init(container: NSPersistentContainer) {
        self.container = container
    }

    // object-across-queues, the bug: the private context's objects cross to the main
    // queue. Reading `$0.title` there is also a use of that context outside its perform
    // (context-without-perform); it is one bug, reported once, by the more specific rule.
    func showTitles() {
        let context = container.newBackgroundContext()
        context.perform {
            let entries = (try? context.fetch(NSFetchRequest<Entry>(entityName: "Entry"))) ?? []
            DispatchQueue.main.async {
                entries.forEach { print($0.title ?? "") } // expect: object-across-queues
            }
        }
    }

    // The correct twin: plain values cross.
    func showTitlesFixed() {
        let context = container.newBackgroundContext()
        context.perform {
            let entries = (try? context.fetch(NSFetchRequest<Entry>(entityName: "Entry"))) ?? []
            let titles = entries.map { $0.title ?? "" }
            DispatchQueue.main.async {
                titles.forEach { print($0) }
            }
        }
    }
}
