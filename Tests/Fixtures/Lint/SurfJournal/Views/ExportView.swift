import CoreData
import SwiftUI

struct ExportView: View {
    @Environment(\.managedObjectContext) private var viewContext
    let container: NSPersistentContainer
    @State private var exported = 0

    var body: some View {
        VStack {
            // main-queue-fetch-all, the bug: the whole journal fetched in a button action.
            Button("Export") {
                let entries = (try? viewContext.fetch(JournalEntry.fetchRequest())) ?? [] // expect: main-queue-fetch-all
                exported = entries.count
            }
            // main-queue-fetch-all, the correct twin: the export runs on a background context.
            Button("Export in background") {
                container.performBackgroundTask { context in
                    let entries = (try? context.fetch(JournalEntry.fetchRequest())) ?? []
                    let count = entries.count
                    DispatchQueue.main.async { exported = count }
                }
            }
            Text("\(exported) exported")
        }
    }

    // object-across-queues, the bug: a managed object handed to a detached task.
    func summarize(_ entry: JournalEntry) {
        Task.detached {
            print(entry.location ?? "") // expect: object-across-queues
        }
    }

    // object-across-queues, the correct twin: a plain value crosses.
    func summarizeFixed(_ entry: JournalEntry) {
        let location = entry.location ?? ""
        Task.detached {
            print(location)
        }
    }
}
