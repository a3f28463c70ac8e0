// The fixed twin of ../bug/MapViewController.swift.txt (ngageoint/mage-ios 09eb880b):
// the fetched results controller fetches on the main queue, its context's.
import CoreData
import UIKit

final class Observation: NSManagedObject {
    @NSManaged var timestamp: Date?
    @NSManaged var latitude: Double
    @NSManaged var longitude: Double
}

final class Persistence {
    static let shared = Persistence()
    let container = NSPersistentContainer(name: "Mage")
}

final class MapViewController: UIViewController {
    lazy var observations: NSFetchedResultsController<Observation> = {
        let request = NSFetchRequest<Observation>(entityName: "Observation")
        request.sortDescriptors = [NSSortDescriptor(key: "timestamp", ascending: false)]
        return NSFetchedResultsController(
            fetchRequest: request, managedObjectContext: Persistence.shared.container.viewContext,
            sectionNameKeyPath: nil, cacheName: nil)
    }()

    override func viewDidLoad() {
        super.viewDidLoad()
        try? observations.performFetch()
        let count = observations.fetchedObjects?.count ?? 0
        title = "\(count) observations"
    }
}
