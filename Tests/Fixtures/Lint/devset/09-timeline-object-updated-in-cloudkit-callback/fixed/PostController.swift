// The fixed twin of ../bug/PostController.swift.txt (DevMountain/Timeline #13): the
// CloudKit callback updates the post inside the main context's perform { }.
import CloudKit
import CoreData
import UIKit

final class Stack {
    static let shared = Stack()
    lazy var managedObjectContext: NSManagedObjectContext = {
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
        return context
    }()
}

final class Post: NSManagedObject {
    @NSManaged var caption: String?
    @NSManaged var recordName: String?

    var cloudKitRecord: CKRecord {
        let record = CKRecord(recordType: "Post")
        record["caption"] = caption
        return record
    }

    func update(with record: CKRecord) {
        recordName = record.recordID.recordName
    }
}

final class CloudKitManager {
    let database = CKContainer.default().publicCloudDatabase

    func save(_ record: CKRecord, completion: @escaping (CKRecord?, Error?) -> Void) {
        database.save(record) { record, error in
            completion(record, error)
        }
    }
}

final class PostController {
    static let shared = PostController()
    let cloudKitManager = CloudKitManager()

    func createPost(caption: String) {
        let context = Stack.shared.managedObjectContext
        let post = Post(context: context)
        post.caption = caption
        try? context.save()
        cloudKitManager.save(post.cloudKitRecord) { record, _ in
            guard let record else { return }
            context.perform {
                post.update(with: record)
            }
        }
    }
}

final class AddPostViewController: UIViewController {
    @IBOutlet var captionField: UITextField!

    @IBAction func addPostTapped(_ sender: Any) {
        PostController.shared.createPost(caption: captionField.text ?? "")
    }
}
