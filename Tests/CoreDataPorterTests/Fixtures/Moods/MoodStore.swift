// A fixture of ours in the style of an Xcode-era model layer: what issue 46, item 9
// found in real ones (constants, casts, perform, Foundation-only imports).
import Foundation

final class MoodStore: NSObject {
    let container = NSPersistentContainer()
    private let refreshSelector: Selector = #selector(refresh)

    override init() {
        super.init()
        let center = NotificationCenter.default
        center.addObserver(self, selector: ModelConstants.saveSelector, name: .NSManagedObjectContextDidSave, object: nil)
        let sel = #selector(importChanges(_:))
        center.addObserver(self,
                           selector: sel,
                           name: .NSManagedObjectContextDidSave,
                           object: nil)
        perform(refreshSelector)
        self.perform(NSSelectorFromString("apply:"), with: "x")
    }

    deinit { NotificationCenter.default.removeObserver(self) }

    func modelURL() -> URL? {
        Bundle.main.url(forResource: ModelConstants.name, withExtension: ModelConstants.modelExtension)
    }

    func moods() throws -> [Mood] {
        let request = Mood.fetchRequest() as! NSFetchRequest<Mood>
        request.fetchLimit = 10
        return try container.viewContext.fetch(request)
    }

    func typed(_ request: NSFetchRequest<NSFetchRequestResult>) -> NSFetchRequest<Mood>? {
        guard let typed = request as? NSFetchRequest<Mood> else { return nil }
        return typed
    }

    func entityClass(_ entity: NSEntityDescription) -> AnyClass? {
        NSClassFromString(entity.managedObjectClassName)
    }

    @objc func contextDidSave(_ note: Notification) {}
    @objc func importChanges(_ note: Notification) throws {}
    @objc func refresh() {}
    @objc func apply(_ value: Any?) {}
}
