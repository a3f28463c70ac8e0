import CoreData

final class RatingWatcher: NSObject {
    var observation: NSKeyValueObservation?

    func watch(_ note: Note) {
        observation = note.observe(\.rating, options: [.new]) { _, _ in }
        note.addObserver(self, forKeyPath: "title", options: [.new], context: nil)
    }

    func total(_ folder: Folder) -> Int {
        (folder.value(forKeyPath: "notes.@sum.rating") as? Int) ?? 0
    }

    func button() {
        _ = #selector(watch(_:))
        perform(NSSelectorFromString(name), with: nil)
    }
}
