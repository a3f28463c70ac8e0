/// A registered object, held weakly unless it has changes (the context holds
/// changed objects strongly in its change sets), as Core Data's context does.
struct WeakObject {
    weak var object: ManagedObject?
    init(_ object: ManagedObject?) { self.object = object }

    /// Fills an empty (or dead) slot with `make()`'s object and returns it; nil when the
    /// slot holds a live object. One hash of the key: `&registry[id, default: WeakObject(nil)]`.
    static func claim(_ slot: inout WeakObject, _ make: () -> ManagedObject) -> ManagedObject? {
        if slot.object != nil { return nil }
        let o = make()
        slot.object = o
        return o
    }
}
