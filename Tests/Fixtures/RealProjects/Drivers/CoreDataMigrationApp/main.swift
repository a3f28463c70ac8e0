// Our driver for wibosco/CoreDataMigrationRevised-Example's model layer, as an app updated
// from its first model version launches: the store Core Data wrote on iOS for version 1
// (from its tests' resources) at the container's store URL, migrated by
// CoreDataManager.setup through versions 2 (inferred), 3 (its mapping model and policy) and
// 4; then the posts screen's fetch on the main context (PostsViewController.loadData), the
// writer's save on the background context from a global queue
// (PostWriterViewController.saveButtonPressed), merged into the main context, and the next
// launch finding a current store that needs no migration.
import CoreData
@testable import CoreDataMigration_Example
import Foundation

/// Runs the main run loop until `done` is signalled: setup calls back on the main queue.
func runMainQueue(until done: DispatchSemaphore) {
    while done.wait(timeout: .now()) == .timedOut { RunLoop.main.run(until: Date().addingTimeInterval(0.01)) }
}

func setUp(_ manager: CoreDataManager) {
    let loaded = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var outcome: Result<Void, Error>?
    manager.setup { result in
        outcome = result
        loaded.signal()
    }
    runMainQueue(until: loaded)
    if case .failure(let error) = outcome! { preconditionFailure("setup failed: \(error)") }
}

/// PostsViewController.loadData: the posts not soft-deleted, newest first.
func loadPosts(_ context: NSManagedObjectContext) throws -> [Post] {
    let request = NSFetchRequest<Post>.init(entityName: "Post")
    request.sortDescriptors = [NSSortDescriptor(key: "date", ascending: false)]
    request.predicate = NSPredicate(format: "softDeleted == NO")
    return try context.fetch(request)
}

let manager = CoreDataManager.shared
let storeURL = manager.persistentContainer.persistentStoreDescriptions.first!.url!
try FileManager.default.createDirectory(at: storeURL.deletingLastPathComponent(), withIntermediateDirectories: true)
try FileManager.default.copyItem(at: Bundle.module.url(forResource: "CoreDataMigration_Example_1", withExtension: "sqlite")!, to: storeURL)
let current = try CoreDataMigrationVersion.current()
let old = try manager.migrator.requiresMigration(at: storeURL, toVersion: current)
precondition(old, "a version 1 store")
setUp(manager)

let posts = try loadPosts(manager.mainContext)
precondition(posts.count == 10, "the 10 posts of the version 1 store: \(posts.count)")
for post in posts {
    let sections = (post.sections as! Set<Section>).sorted { $0.index < $1.index }
    // Post2ToPost3MigrationPolicy: one section, its body the post's content, its title that content's first four characters and "...".
    precondition(sections.count == 1 && sections[0].index == 0, "version 3's policy made a section of each post's content")
    let body = sections[0].body ?? ""
    precondition(!body.isEmpty && sections[0].title == body.prefix(4).appending("..."), "the section's title made from the content: \(sections[0].title ?? "nil")")
    precondition(!post.softDeleted && post.hexColor != nil && post.postID != nil)
}

// The writer's save, from a global queue on the background context.
let saved = DispatchSemaphore(value: 0)
DispatchQueue.global(qos: .userInitiated).async {
    let context = manager.backgroundContext
    context.performAndWait {
        let post = NSEntityDescription.insertNewObject(forEntityName: "Post", into: context) as! Post
        post.postID = UUID().uuidString
        post.date = Date()
        post.hexColor = "AEC6CF"
        for (index, text) in [("Linux", "ported"), ("", ""), ("", "a body alone")].enumerated() {
            guard text.0.count > 0 || text.1.count > 0 else { continue }
            let section = NSEntityDescription.insertNewObject(forEntityName: "Section", into: context) as! Section
            section.title = text.0
            section.body = text.1
            section.index = Int16(index)
            section.post = post
            post.addToSections(section)
        }
        if post.sections?.count ?? 0 > 0 { try? context.save() }
    }
    saved.signal()
}
runMainQueue(until: saved)
// automaticallyMergesChangesFromParent: the main context has the post once its merge ran.
let merged = DispatchSemaphore(value: 0)
manager.mainContext.perform { merged.signal() }
runMainQueue(until: merged)
let afterSave = try loadPosts(manager.mainContext)
precondition(afterSave.count == 11 && afterSave[0].hexColor == "AEC6CF", "the new post, newest first: \(afterSave.count)")
let newSections = (afterSave[0].sections as! Set<Section>).sorted { $0.index < $1.index }
precondition(newSections.map(\.index) == [0, 2] && newSections.map(\.body) == ["ported", "a body alone"], "the empty section skipped")

// The next launch: the store is current, so setup migrates nothing and reads the 11 posts.
let relaunched = CoreDataManager()
let stillOld = try relaunched.migrator.requiresMigration(at: storeURL, toVersion: current)
precondition(!stillOld, "migrated once")
setUp(relaunched)
let relaunchedPosts = try loadPosts(relaunched.mainContext)
precondition(relaunchedPosts.count == 11, "\(relaunchedPosts.count)")
print("CoreDataMigrationRevised: a version 1 store from iOS migrated at launch to version 4 (10 posts, a section each); a post saved in the background merged into the main context; the next launch migrates nothing")
