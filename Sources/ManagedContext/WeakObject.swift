/// A registered object, held weakly unless it has changes (the context holds
/// changed objects strongly in its change sets), as Core Data's context does.
struct WeakObject {
    weak var object: ManagedObject?
    init(_ object: ManagedObject) { self.object = object }
}
