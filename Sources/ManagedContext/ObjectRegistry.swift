/// The objects a context has registered, by objectID. As in Core Data, the context
/// holds them weakly (it holds changed objects strongly, in its change sets), and
/// returns the same instance for an ID while that instance lives.
///
/// A streamed enumeration (`enumerateObjects`) makes one object per row, which
/// its body nearly always drops. A weak reference gives the object a side table
/// (an allocation, and the slow reference-counting path for its whole life), so
/// the row's object is not put into the table while the body runs: it sits in
/// `streamed`, where every lookup sees it, and goes into the table only if
/// something still holds it when the body returns (`endStreamed`). Every other
/// change to the registry puts it into the table first.
struct ObjectRegistry {
    private var table: [ManagedObjectID: WeakObject] = [:]
    /// The object of the row being enumerated; the enumeration holds it strongly
    /// until `endStreamed`.
    private var streamed: Unmanaged<ManagedObject>?
    private var purgeThreshold = 1024

    /// The live object registered under `id` itself (aliases are the caller's business).
    func object(for id: ManagedObjectID) -> ManagedObject? {
        if let streamed, streamed._withUnsafeGuaranteedRef({ $0.objectID == id }) {
            return streamed.takeUnretainedValue()
        }
        return table[id]?.object
    }

    mutating func register(_ object: ManagedObject) {
        settleStreamed()
        table[object.objectID] = WeakObject(object)
        if table.count > purgeThreshold { purge() }
    }

    mutating func remove(_ id: ManagedObjectID) {
        settleStreamed()
        table.removeValue(forKey: id)
    }

    /// Every live registered object.
    var objects: [ManagedObject] {
        var live = table.values.compactMap(\.object)
        if let streamed { live.append(streamed.takeUnretainedValue()) }
        return live
    }

    var containsTemporaryIDs: Bool { table.keys.contains { $0.isTemporaryID } }

    mutating func removeAll() {
        streamed = nil
        table = [:]
    }

    /// Registers the object `make()` returns for a streamed row, unless a live object
    /// is registered under `id` already (then nil: the caller takes that one). The
    /// caller holds the object strongly and calls `endStreamed` when its body returns.
    mutating func beginStreamed(_ id: ManagedObjectID, _ make: () -> ManagedObject) -> ManagedObject? {
        settleStreamed()
        if !table.isEmpty, table[id]?.object != nil { return nil }
        let object = make()
        streamed = Unmanaged.passUnretained(object)
        return object
    }

    /// Ends `object`'s streamed registration: if anything but the caller still holds
    /// it, it goes into the table; if not, it dies with the caller's reference, as
    /// a weakly registered object nobody holds would.
    mutating func endStreamed(_ object: inout ManagedObject) {
        guard let streamed, streamed.toOpaque() == Unmanaged.passUnretained(object).toOpaque() else { return }
        self.streamed = nil
        if !isKnownUniquelyReferenced(&object) { register(object) }
    }

    /// Puts the streamed object, if any, into the table. Its enumeration still holds it.
    private mutating func settleStreamed() {
        guard let object = streamed?.takeUnretainedValue() else { return }
        streamed = nil
        register(object)
    }

    /// Drops the entries of objects that are gone. Runs when the table has doubled
    /// since the last purge, so its cost per registration is constant. The few live
    /// entries are set aside and put back into the emptied table (its storage kept),
    /// rather than each dead one removed by its hash.
    private mutating func purge() {
        var live: [(ManagedObjectID, ManagedObject)] = []
        for index in table.indices {
            if let object = table.values[index].object { live.append((table.keys[index], object)) }
        }
        table.removeAll(keepingCapacity: true)
        for (id, object) in live { table[id] = WeakObject(object) }
        purgeThreshold = max(1024, live.count * 2)
    }
}

/// A registered object, held weakly.
struct WeakObject {
    weak var object: ManagedObject?
    init(_ object: ManagedObject?) { self.object = object }
}
