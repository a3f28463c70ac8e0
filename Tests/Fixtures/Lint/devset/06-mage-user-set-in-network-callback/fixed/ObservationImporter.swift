// The fixed twin of ../bug/ObservationImporter.swift.txt (ngageoint/mage-ios #269): the
// callback switches to the private context's queue before it touches its objects.
import CoreData
import Foundation

final class MapUser: NSManagedObject {
    @NSManaged var remoteID: String?

    static func find(remoteID: String, in context: NSManagedObjectContext) -> MapUser? {
        let request = NSFetchRequest<MapUser>(entityName: "MapUser")
        request.predicate = NSPredicate(format: "remoteID == %@", remoteID)
        request.fetchLimit = 1
        return (try? context.fetch(request))?.first
    }
}

final class Observation: NSManagedObject {
    @NSManaged var remoteID: String?
    @NSManaged var user: MapUser?
}

/// The app's networking layer: calls back on the main queue.
final class UserAPI {
    func fetchUser(id: String, success: @escaping (Data) -> Void) {
        let url = URL(string: "https://mage.example/api/users/\(id)")!
        URLSession.shared.dataTask(with: url) { data, _, _ in
            guard let data else { return }
            DispatchQueue.main.async { success(data) }
        }.resume()
    }
}

final class ObservationImporter {
    let container: NSPersistentContainer
    let api = UserAPI()

    init(container: NSPersistentContainer) {
        self.container = container
    }

    func importObservations(_ features: [[String: String]]) {
        container.performBackgroundTask { context in
            for feature in features {
                let observation = Observation(context: context)
                observation.remoteID = feature["id"]
                guard let userID = feature["userId"] else { continue }
                if let user = MapUser.find(remoteID: userID, in: context) {
                    observation.user = user
                } else {
                    self.api.fetchUser(id: userID) { _ in
                        context.perform {
                            observation.user = MapUser.find(remoteID: userID, in: context)
                            try? context.save()
                        }
                    }
                }
            }
            try? context.save()
        }
    }
}
