import CoreData

final class Uploader: ContextHolder {
    let context = AppStack.shared.container.newBackgroundContext()

    // The bug: the private context fetched from on the main queue.
    func upload() {
        let request = NSFetchRequest<Note>(entityName: "Note")
        DispatchQueue.main.async {
            _ = try? self.context.fetch(request) // expect: context-without-perform
        }
    }

    // The correct twin.
    func uploadFixed() {
        let request = NSFetchRequest<Note>(entityName: "Note")
        context.perform {
            _ = try? self.context.fetch(request)
        }
    }
}
