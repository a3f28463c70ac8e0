// The fixed twin of ../bug/CrashLoggingDataProvider.swift.txt (wordpress-mobile/
// WordPress-iOS #20846): the account is looked up and read inside the main context's
// performAndWait; only a value leaves it.
import CoreData
import Foundation

final class Account: NSManagedObject {
    @NSManaged var userID: NSNumber?
    @NSManaged var username: String?
    @NSManaged var email: String?
    @NSManaged var isDefault: Bool
}

struct TracksUser {
    var userID: String?
    var email: String?
    var username: String?
}

/// What the crash-logging library asks the app, from the thread that logs.
protocol CrashLoggingDataProvider {
    var currentUser: TracksUser? { get }
}

final class ContextManager {
    static let shared = ContextManager()
    let container = NSPersistentContainer(name: "WordPress")
    var mainContext: NSManagedObjectContext { container.viewContext }
}

final class AppCrashLoggingDataProvider: CrashLoggingDataProvider {
    let contextManager: ContextManager

    init(contextManager: ContextManager = .shared) {
        self.contextManager = contextManager
    }

    var currentUser: TracksUser? {
        let context = contextManager.mainContext
        var user: TracksUser?
        context.performAndWait {
            let request = NSFetchRequest<Account>(entityName: "Account")
            request.predicate = NSPredicate(format: "isDefault == YES")
            request.fetchLimit = 1
            if let account = (try? context.fetch(request))?.first {
                user = TracksUser(userID: account.userID?.stringValue, email: account.email, username: account.username)
            }
        }
        return user
    }
}
