// The fixed twin of ../bug/RefreshFeaturedImageTests.swift.txt (vdhamer/Photo-Club-Hub
// aad3e9cd): the helpers run, and the result is read, inside await bgContext.perform.
import CoreData
import Foundation
import Testing

struct PersistenceController {
    static let shared = PersistenceController()
    let container = NSPersistentContainer(name: "PhotoClubHub")
}

final class Organization: NSManagedObject {
    @NSManaged var name: String?
    @NSManaged var website: URL?

    static func findCreateUpdate(context: NSManagedObjectContext, name: String) -> Organization {
        let request = NSFetchRequest<Organization>(entityName: "Organization")
        request.predicate = NSPredicate(format: "name == %@", name)
        if let found = (try? context.fetch(request))?.first { return found }
        let created = Organization(context: context)
        created.name = name
        return created
    }
}

struct RefreshFeaturedImageTests {
    @Test("An unknown club gets the placeholder image index")
    func imageIndexOfUnknownClub() async {
        let bgContext = PersistenceController.shared.container.newBackgroundContext()
        let host: String? = await bgContext.perform {
            let club = Organization.findCreateUpdate(context: bgContext, name: "Template club")
            club.website = URL(string: "https://club.example/config.xml")
            return club.website?.host
        }
        #expect(host == "club.example")
    }
}
