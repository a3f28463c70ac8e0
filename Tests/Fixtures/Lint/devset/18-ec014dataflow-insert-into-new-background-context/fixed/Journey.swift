// The fixed twin of ../bug/Journey.swift.txt (editorscut/ec014dataflow 6731801): the
// journey is inserted into the view context, on the main queue where the button runs.
import CoreData
import SwiftUI

struct PersistenceController {
    static let shared = PersistenceController()
    let container = NSPersistentContainer(name: "RoadTrip")
}

final class Journey: NSManagedObject {
    @NSManaged var startDate: Date?
    @NSManaged var transport: String?
}

extension Journey {
    convenience init(transport: String) {
        let context = PersistenceController.shared.container.viewContext
        self.init(context: context)
        self.transport = transport
        startDate = Date()
    }
}

struct JourneyList: View {
    @Environment(\.managedObjectContext) private var viewContext
    @FetchRequest(sortDescriptors: [SortDescriptor(\.startDate)]) private var journeys: FetchedResults<Journey>

    var body: some View {
        List(journeys) { journey in
            Text(journey.transport ?? "")
        }
        .toolbar {
            Button("Add") {
                _ = Journey(transport: "car")
                try? viewContext.save()
            }
        }
    }
}
