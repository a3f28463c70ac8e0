import CoreData
import UIKit

// context-without-perform, the bug: the list controller (another file) hands this
// controller the stack's saving context, a private-queue context, and every use of
// it here runs on the main queue, outside its perform.
final class CreateNoteViewController: UIViewController, UIImagePickerControllerDelegate, UINavigationControllerDelegate {
    var managedObjectContext: NSManagedObjectContext!
    @IBOutlet var imageView: UIImageView!

    lazy var note: Note? = {
        return Note(context: managedObjectContext) // expect: context-without-perform
    }()

    override func viewDidAppear(_ animated: Bool) {
        super.viewDidAppear(animated)
        if let data = note?.image { // expect: context-without-perform
            imageView.image = UIImage(data: data)
        }
    }

    func imagePickerController(_ picker: UIImagePickerController, didFinishPickingMediaWithInfo info: [UIImagePickerController.InfoKey: Any]) {
        guard let image = info[.originalImage] as? UIImage, let data = image.pngData() else { return }
        let attachment = Attachment(context: managedObjectContext) // expect: context-without-perform
        attachment.data = data // expect: context-without-perform
        picker.dismiss(animated: true)
    }
}

// context-without-perform, the correct twin: the same private context, reached only
// inside its perform; what the UI needs comes back as plain values.
final class SafeCreateNoteViewController: UIViewController, UIImagePickerControllerDelegate, UINavigationControllerDelegate {
    var workContext: NSManagedObjectContext!
    var note: Note?
    @IBOutlet var imageView: UIImageView!

    override func viewDidLoad() {
        super.viewDidLoad()
        workContext.perform {
            self.note = Note(context: self.workContext)
        }
    }

    override func viewDidAppear(_ animated: Bool) {
        super.viewDidAppear(animated)
        workContext.perform {
            let data = self.note?.image
            DispatchQueue.main.async {
                self.imageView.image = data.flatMap(UIImage.init(data:))
            }
        }
    }

    func imagePickerController(_ picker: UIImagePickerController, didFinishPickingMediaWithInfo info: [UIImagePickerController.InfoKey: Any]) {
        guard let image = info[.originalImage] as? UIImage, let data = image.pngData() else { return }
        workContext.perform {
            let attachment = Attachment(context: self.workContext)
            attachment.data = data
            attachment.note = self.note
            try? self.workContext.save()
        }
        picker.dismiss(animated: true)
    }
}

// Another correct twin: the view context, used on the main queue.
final class EditNoteViewController: UIViewController {
    var editingContext: NSManagedObjectContext!
    var note: Note?

    lazy var draft: Note = {
        Note(context: editingContext)
    }()

    override func viewWillDisappear(_ animated: Bool) {
        super.viewWillDisappear(animated)
        draft.title = note?.title ?? ""
        try? editingContext.save()
    }
}
