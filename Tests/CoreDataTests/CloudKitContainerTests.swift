import CoreData
import Foundation
import Testing
import TestSupport

/// Apps written for iCloud sync make `NSPersistentCloudKitContainer` and pin the view
/// context to the current query generation, as Apple's "Synchronizing a local store to
/// the cloud" sample and Core Data by Tutorials' DogDoodies (chapter 10) do:
/// `try container.viewContext.setQueryGenerationFrom(.current)`. On Linux there is no
/// CloudKit: the container is a local one, as Apple's is with no iCloud account, and the
/// pin is kept but not honoured (docs/coredata-on-linux.md).
@Suite struct CloudKitContainerTests {
    @Test func aCloudKitContainerStoresLocally() throws {
        let dir = TempDirectory("cloudkit-container")
        let container = NSPersistentCloudKitContainer(name: "Notes", managedObjectModel: NotesModel.make())
        let description = NSPersistentStoreDescription(url: dir.file("Notes.sqlite"))
        description.cloudKitContainerOptions = NSPersistentCloudKitContainerOptions(containerIdentifier: "iCloud.com.example.notes")
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        container.persistentStoreDescriptions = [description]
        #expect(description.cloudKitContainerOptions?.containerIdentifier == "iCloud.com.example.notes")
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        #expect(loadError == nil)
        try container.initializeCloudKitSchema(options: [])
        let context = container.viewContext
        context.automaticallyMergesChangesFromParent = true
        try context.setQueryGenerationFrom(.current)
        #expect(context.queryGenerationToken != nil)  // the pinned generation's own token
        try context.performAndWait {
            Note(context: context).title = "synced nowhere"
            try context.save()
            #expect(try context.count(for: NSFetchRequest<Note>(entityName: "Note")) == 1)
        }
        try context.setQueryGenerationFrom(nil)
        #expect(context.queryGenerationToken == nil)
    }
}
