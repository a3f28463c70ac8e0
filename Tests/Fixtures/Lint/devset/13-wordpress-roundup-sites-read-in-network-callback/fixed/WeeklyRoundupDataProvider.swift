// The fixed twin of ../bug/WeeklyRoundupDataProvider.swift.txt (wordpress-mobile/
// WordPress-iOS #21076): the callback reads the sites inside context.perform { }.
import CoreData
import Foundation

final class Blog: NSManagedObject {
    @NSManaged var dotComID: NSNumber?
    @NSManaged var name: String?
}

struct NotificationSettings {
    var weeklyRoundupBySite: [Int: Bool]
}

protocol NotificationSettingsRemote {
    func getAllSettings(success: @escaping ([NotificationSettings]) -> Void, failure: @escaping (Error?) -> Void)
}

final class CoreDataStack {
    let container: NSPersistentContainer

    init(container: NSPersistentContainer) {
        self.container = container
    }

    func newDerivedContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.parent = container.viewContext
        return context
    }
}

final class WeeklyRoundupDataProvider {
    private let context: NSManagedObjectContext
    private let remote: NotificationSettingsRemote

    init(coreDataStack: CoreDataStack, remote: NotificationSettingsRemote) {
        context = coreDataStack.newDerivedContext()
        self.remote = remote
    }

    func filterWeeklyRoundupEnabledSites(_ sites: [Blog], result: @escaping (Result<[Blog], Error>) -> Void) {
        remote.getAllSettings { settings in
            self.context.perform {
                let enabled = sites.filter { site in
                    guard let id = site.dotComID?.intValue else { return false }
                    return settings.contains { $0.weeklyRoundupBySite[id] ?? true }
                }
                result(.success(enabled))
            }
        } failure: { error in
            result(.failure(error ?? CocoaError(.featureUnsupported)))
        }
    }

    func fetchSites(result: @escaping (Result<[Blog], Error>) -> Void) {
        context.perform {
            let sites = (try? self.context.fetch(NSFetchRequest<Blog>(entityName: "Blog"))) ?? []
            self.filterWeeklyRoundupEnabledSites(sites, result: result)
        }
    }
}
