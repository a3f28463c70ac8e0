import CloudKit
import CoreData

// object-across-queues, the bug: CloudKit calls the completion handler of
// CKDatabase.save(_:completionHandler:) on a thread it picks (Apple's reference for
// saveRecord:completionHandler:: "Your block must be capable of running on any thread of
// the app"), and a project function that calls its closure parameter there runs that
// closure there too: an object of the main-queue context is used on any thread.
final class CloudUploader {
    let database = CKContainer.default().privateCloudDatabase

    func upload(_ record: CKRecord, done: @escaping (CKRecord?) -> Void) {
        database.save(record) { saved, _ in
            done(saved)
        }
    }
}

final class DownloadPublisher {
    let container: NSPersistentContainer
    let uploader = CloudUploader()

    init(container: NSPersistentContainer) {
        self.container = container
    }

    func publish(_ download: Download) {
        let record = CKRecord(recordType: "Download")
        uploader.upload(record) { saved in
            download.url = saved?.recordID.recordName // expect: object-across-queues
        }
    }

    // The correct twin: the object is changed inside its context's perform { }.
    func publishFixed(_ download: Download) {
        let record = CKRecord(recordType: "Download")
        let viewContext = container.viewContext
        uploader.upload(record) { saved in
            viewContext.perform {
                download.url = saved?.recordID.recordName
            }
        }
    }

    // main-context-off-main-queue, the bug: the view context saved in the handler itself.
    func markPublished(_ record: CKRecord) {
        let database: CKDatabase = CKContainer.default().publicCloudDatabase
        database.save(record) { _, _ in
            try? self.container.viewContext.save() // expect: main-context-off-main-queue
        }
    }

    // Silent: Apple's reference does not say where CloudKit's other completion handlers
    // run; they stay unknown.
    func refresh(_ id: CKRecord.ID) {
        CKContainer.default().publicCloudDatabase.fetch(withRecordID: id) { _, _ in
            try? self.container.viewContext.save()
        }
    }
}
