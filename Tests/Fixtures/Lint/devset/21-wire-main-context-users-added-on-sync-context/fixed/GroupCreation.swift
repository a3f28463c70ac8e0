// The fixed twin of ../bug/GroupCreation.swift.txt (wireapp/wire-ios #962): only the
// users' objectIDs cross; the sync context gets its own copies of the users.
import CoreData
import UIKit

final class User: NSManagedObject {
    @NSManaged var name: String?
}

final class Conversation: NSManagedObject {
    @NSManaged var name: String?
    @NSManaged var participants: NSSet?
}

final class GroupCreator {
    let syncContext: NSManagedObjectContext

    init(container: NSPersistentContainer) {
        syncContext = container.newBackgroundContext()
    }

    func createGroup(named name: String, with userIDs: [NSManagedObjectID]) {
        syncContext.perform {
            let users = userIDs.map { self.syncContext.object(with: $0) }
            let conversation = Conversation(context: self.syncContext)
            conversation.name = name
            conversation.participants = NSSet(array: users)
            try? self.syncContext.save()
        }
    }
}

final class CreateGroupViewController: UIViewController {
    var container: NSPersistentContainer!
    var creator: GroupCreator!
    var selectedNames: [String] = []

    @IBAction func createTapped(_ sender: Any) {
        let request = NSFetchRequest<User>(entityName: "User")
        request.predicate = NSPredicate(format: "name IN %@", selectedNames)
        request.fetchLimit = selectedNames.count
        let users = (try? container.viewContext.fetch(request)) ?? []
        creator.createGroup(named: "New group", with: users.map(\.objectID))
    }
}
