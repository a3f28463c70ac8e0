import ConcurrencyDebug
import CtxdebugHelpers
import Foundation

extension ManagedObjectContext {
    /// The entity a request fetches: the one it names (Core Data's `NSFetchRequest(entityName:)`),
    /// or the entity of its result class.
    func entity<T: ManagedObject>(of request: FetchRequest<T>) throws(ManagedContextError) -> EntityDescription {
        guard let named = request.entity else { return model.entity(for: T.self) }
        guard model.entities.contains(where: { $0 === named }) else {
            throw ManagedContextError(.invalidFetchRequest, "The fetch request's entity \(named.name) is not in this context's model; make the request with an entity of the model the context's coordinator uses.")
        }
        return named
    }

    /// Fetches the objects matching `request`, including this context's unsaved
    /// inserts and changes and leaving out its deletes. With a `fetchBatchSize`,
    /// the result loads objects batch by batch as iteration reaches them.
    public func fetch<T: ManagedObject>(_ request: FetchRequest<T>) throws(ManagedContextError) -> FetchedResults<T> {
        schedulingPoint(.fetch)
        return try operation(.fetch) { () throws(ManagedContextError) -> FetchedResults<T> in try fetchChecked(request) }
    }

    private func fetchChecked<T: ManagedObject>(_ request: FetchRequest<T>) throws(ManagedContextError) -> FetchedResults<T> {
        let span = ContextInstrumentation.begin(.fetch, self)
        defer { span.end() }
        try Self.requireObjectResults(request)
        let f = try PredicateResolution.resolve(request, entity: entity(of: request))
        let eager = request.fetchBatchSize == 0
        let started = concurrencyType == .mainQueue ? MonotonicClock.now() : 0
        let rows = try matchingRows(f, applyWindow: true, loadValues: eager, includePending: request.includesPendingChanges)
        diagnoseMainQueueIO("fetch of \(f.entity.name)", rows: rows.count, started: started)
        return FetchedResults(context: self, rows: rows, batchSize: request.fetchBatchSize, asFaults: request.returnsObjectsAsFaults)
    }

    /// Calls `body` with each object matching `request`, in the request's order:
    /// what `fetch` returns, without holding it. One query reads the rows with their
    /// values as `body` goes (no ID list, no per-batch `IN` query), so memory stays
    /// flat however many objects match; use it for a single pass such as an export.
    ///
    /// It sees what `fetch` sees: this context's unsaved inserts and changes merged
    /// in at their place in the order, its deletes left out, registered objects
    /// returned as themselves with their pending values. A child context reads its
    /// parent's view through a batched fetch. Objects `body` does not keep are
    /// released as it goes (the context holds unchanged objects weakly).
    public func enumerateObjects<T: ManagedObject>(for request: FetchRequest<T>, using body: (T) throws -> Void) throws {
        guard case .coordinator(let coordinator) = parentStore else {
            var batched = request
            if batched.fetchBatchSize == 0 { batched.fetchBatchSize = Self.enumerationBatchSize }
            for object in try fetch(batched) { try body(object) }
            return
        }
        try operation(.fetch) { () throws in try enumerateStoreObjects(for: request, coordinator: coordinator, using: body) }
    }

    /// `enumerateObjects` for a context on the coordinator, checked already.
    private func enumerateStoreObjects<T: ManagedObject>(
        for request: FetchRequest<T>, coordinator: PersistentStoreCoordinator, using body: (T) throws -> Void
    ) throws {
        let span = ContextInstrumentation.begin(.fetch, self)
        defer { span.end() }
        try Self.requireObjectResults(request)
        let f = try PredicateResolution.resolve(request, entity: entity(of: request))
        let started = concurrencyType == .mainQueue ? MonotonicClock.now() : 0
        let store = try coordinator.store()
        var pending = request.includesPendingChanges && hasLocalChanges(for: f.entity) ? pendingRows(f) : PendingRows()
        if !pending.isEmpty && f.sorts.contains(where: { !$0.steps.isEmpty }) {
            // Merging unsaved rows into the stream by a related object's value would read
            // it for every streamed row: sorts through relationships go the batched way.
            var batched = request
            if batched.fetchBatchSize == 0 { batched.fetchBatchSize = Self.enumerationBatchSize }
            for object in try fetchChecked(batched) { try body(object) }
            return
        }
        var window = FetchWindow(offset: pending.isEmpty ? 0 : f.offset, limit: pending.isEmpty ? 0 : f.limit)
        let stream = try store.rowStream(f, applyWindow: pending.isEmpty)
        defer { stream.close() }
        var mayHoldAliases: Bool?
        rows: while let row = try stream.next() {
            // Read once the stream's snapshot has begun (at its first row): only an
            // object registered here under a temporary ID can be a store row's alias.
            if mayHoldAliases == nil { mayHoldAliases = registry.containsTemporaryIDs }
            if pending.overrides(row.id) { continue }
            while let first = pending.first(preceding: row, sorts: f.sorts) {
                guard try deliver(first, &window, mayHoldAliases: true, body) else { break rows }
            }
            guard try deliver(row, &window, mayHoldAliases: mayHoldAliases ?? true, body) else { break }
        }
        while let rest = pending.next(), try deliver(rest, &window, mayHoldAliases: true, body) {}
        diagnoseMainQueueIO("fetch of \(f.entity.name)", rows: window.delivered, started: started)
    }

    /// Hands one row's object to an enumeration's `body` if the window admits it;
    /// false once the window is full.
    private func deliver<T: ManagedObject>(
        _ row: FetchedRow, _ window: inout FetchWindow, mayHoldAliases: Bool, _ body: (T) throws -> Void
    ) throws -> Bool {
        guard window.admit() else { return !window.isFull }
        guard !mayHoldAliases, let snapshot = row.snapshot, var object = beginStreamed(row.id, snapshot) else {
            try body(materialize(row.id, row.snapshot) as! T)
            return !window.isFull
        }
        // `object` must be the only reference the enumeration keeps: `endStreamed`
        // tells from it whether the body kept the object.
        defer { registry.endStreamed(&object) }
        try body(object as! T)
        return !window.isFull
    }

    static let enumerationBatchSize = 1_000

    /// `fetch` and `enumerateObjects` return objects: a request for another result
    /// type is a mistake this says how to fix.
    static func requireObjectResults<T: ManagedObject>(_ request: FetchRequest<T>) throws(ManagedContextError) {
        let method: String
        switch request.resultType {
        case .managedObjectResultType: return
        case .managedObjectIDResultType: method = "fetchObjectIDs(_:)"
        case .dictionaryResultType: method = "fetchDictionaries(_:) or enumerateDictionaries(for:using:)"
        case .countResultType: method = "count(for:)"
        }
        throw ManagedContextError(
            .invalidFetchRequest,
            "This fetch of objects was given a request whose resultType is .\(request.resultType). Call \(method) for that result type, or set resultType = .managedObjectResultType.")
    }

    /// A new object for a streamed row, registered for the body's run only
    /// (`ObjectRegistry.beginStreamed`); nil when an object is registered under the
    /// row's ID already. Only when no object is registered under a temporary ID:
    /// then a row's object can only be registered under the row's own ID, so the
    /// alias lookup (a lock on the coordinator per row) is skipped.
    private func beginStreamed(_ id: ManagedObjectID, _ snapshot: RowSnapshot) -> ManagedObject? {
        let made = registry.beginStreamed(id) {
            let o = id.entity.managedObjectClass.init(entity: id.entity, insertInto: nil)
            o.objectID = id
            o.values = snapshot.values
            o.toOne = snapshot.toOne
            o.snapshot = snapshot
            return o
        }
        if let made { adopt(made) }
        return made
    }

    /// This context's changed objects of `f`'s entity as rows that replace the
    /// store's: the objects that still match, in the fetch's order.
    private func pendingRows(_ f: ResolvedFetch) -> PendingRows {
        let coordinator = persistentStoreCoordinator
        var pending = PendingRows()
        let changed = changeSets.updated.union(changeSets.deleted).union(changeSets.inserted).filter { f.admits($0.entity) }
        for o in changed {
            pending.overridden.insert(o.objectID)
            if let alias = coordinator?.alias(of: o.objectID) { pending.overridden.insert(alias) }
            if !o.deletedFlag && f.predicate.evaluate(values: o.values, toOne: o.toOne, id: o.objectID, source: self) {
                pending.rows.append(FetchedRow(id: o.objectID, snapshot: RowSnapshot(values: o.values, toOne: o.toOne, version: o.snapshot?.version ?? 0)))
            }
        }
        let keys = RelatedSortKeys(pending.rows, sorts: f.sorts, source: self)
        pending.rows.sort { Self.precedes($0, $1, sorts: f.sorts, keys: keys) }
        return pending
    }

    /// The objectIDs of the objects matching `request` (Core Data's
    /// `.managedObjectIDResultType`): what a background fetch hands to another context.
    public func fetchObjectIDs<T: ManagedObject>(_ request: FetchRequest<T>) throws(ManagedContextError) -> [ManagedObjectID] {
        try operation(.fetch) { () throws(ManagedContextError) -> [ManagedObjectID] in
            let span = ContextInstrumentation.begin(.fetchObjectIDs, self)
            defer { span.end() }
            let f = try PredicateResolution.resolve(request, entity: entity(of: request))
            let started = concurrencyType == .mainQueue ? MonotonicClock.now() : 0
            let ids = try matchingRows(f, applyWindow: true, loadValues: false, includePending: request.includesPendingChanges).map(\.id)
            diagnoseMainQueueIO("fetch of \(f.entity.name) objectIDs", rows: ids.count, started: started)
            return ids
        }
    }

    /// How many objects match `request`, counting unsaved changes.
    public func count<T: ManagedObject>(for request: FetchRequest<T>) throws(ManagedContextError) -> Int {
        schedulingPoint(.fetch)
        return try operation(.count) { () throws(ManagedContextError) -> Int in
            let span = ContextInstrumentation.begin(.count, self)
            defer { span.end() }
            let f = try PredicateResolution.resolve(request, entity: entity(of: request))
            return try countRows(f, includePending: request.includesPendingChanges)
        }
    }

    func countRows(_ f: ResolvedFetch, includePending: Bool) throws(ManagedContextError) -> Int {
        if includePending && hasLocalChanges(for: f.entity) {
            return try matchingRows(f, applyWindow: true, loadValues: false, includePending: true).count
        }
        switch parentStore {
        case .none: throw ManagedContextError(.noStore, "\(debugName) has neither a parent nor a coordinator.")
        case .coordinator(let c): return try c.store().count(f, in: queryGeneration)
        case .context(let p):
            return try p.performAndWaitTyped { () throws(ManagedContextError) -> Int in
                try p.confined { () throws(ManagedContextError) -> Int in try p.countRows(f, includePending: true) }
            }
        }
    }

    /// Whether this context has unsaved changes to objects of `entity` or of an entity
    /// that inherits from it.
    func hasLocalChanges(for entity: EntityDescription) -> Bool {
        if entity.selfAndDescendants.count > 1 {
            return changeSets.inserted.contains { $0.entity.isKind(of: entity) } || changeSets.updated.contains { $0.entity.isKind(of: entity) }
                || changeSets.deleted.contains { $0.entity.isKind(of: entity) }
        }
        return changeSets.inserted.contains { $0.entity === entity } || changeSets.updated.contains { $0.entity === entity }
            || changeSets.deleted.contains { $0.entity === entity }
    }

    /// The rows matching `f` as this context sees them: its parent's rows with its
    /// own unsaved changes laid over. Runs on this context's queue; asks the parent
    /// on the parent's queue, as Core Data's nested contexts do.
    func matchingRows(_ f: ResolvedFetch, applyWindow: Bool, loadValues: Bool, includePending: Bool) throws(ManagedContextError) -> [FetchedRow] {
        guard includePending && hasLocalChanges(for: f.entity) else {
            return try parentRows(f, applyWindow: applyWindow, loadValues: loadValues)
        }
        var rows = try parentRows(f, applyWindow: false, loadValues: true)
        let coordinator = persistentStoreCoordinator
        var overridden = Set<ManagedObjectID>()
        let changed = changeSets.updated.union(changeSets.deleted).union(changeSets.inserted).filter { f.admits($0.entity) }
        for o in changed {
            overridden.insert(o.objectID)
            if let alias = coordinator?.alias(of: o.objectID) { overridden.insert(alias) }
        }
        rows.removeAll { overridden.contains($0.id) }
        for o in changed where !o.deletedFlag {
            if f.predicate.evaluate(values: o.values, toOne: o.toOne, id: o.objectID, source: self) {
                rows.append(FetchedRow(id: o.objectID, snapshot: RowSnapshot(values: o.values, toOne: o.toOne, version: o.snapshot?.version ?? 0)))
            }
        }
        let keys = RelatedSortKeys(rows, sorts: f.sorts, source: self)
        rows.sort { Self.precedes($0, $1, sorts: f.sorts, keys: keys) }
        if applyWindow {
            let start = min(f.offset, rows.count)
            let end = f.limit > 0 ? min(rows.count, start + f.limit) : rows.count
            rows = Array(rows[start..<end])
        }
        return rows
    }

    private func parentRows(_ f: ResolvedFetch, applyWindow: Bool, loadValues: Bool) throws(ManagedContextError) -> [FetchedRow] {
        switch parentStore {
        case .none:
            throw ManagedContextError(.noStore, "\(debugName) has neither a parent nor a persistent store coordinator. Set one before fetching.")
        case .coordinator(let c):
            return try c.store().fetch(f, applyWindow: applyWindow, loadValues: loadValues, in: queryGeneration)
        case .context(let p):
            return try p.performAndWaitTyped { () throws(ManagedContextError) -> [FetchedRow] in
                try p.confined { () throws(ManagedContextError) -> [FetchedRow] in
                    try p.matchingRows(f, applyWindow: applyWindow, loadValues: loadValues, includePending: true)
                }
            }
        }
    }

    /// In-memory order that agrees with the SQL `ORDER BY ..., Z_PK`; unsaved
    /// objects (no Z_PK yet) come after saved ones on ties.
    /// `keys` holds the values of sorts through relationships (`RelatedSortKeys`).
    static func precedes(_ a: FetchedRow, _ b: FetchedRow, sorts: [ResolvedSort], keys: RelatedSortKeys? = nil) -> Bool {
        if let sa = a.snapshot, let sb = b.snapshot {
            for (i, s) in sorts.enumerated() {
                let x: StoredValue, y: StoredValue
                if s.steps.isEmpty {
                    x = sa.values[s.attribute]
                    y = sb.values[s.attribute]
                } else {
                    x = keys?.value(a.id, i) ?? .null
                    y = keys?.value(b.id, i) ?? .null
                }
                let c: Int
                if let comparator = s.comparator, case .text(let tx) = x, case .text(let ty) = y {
                    c = comparator.compare(tx, ty)
                } else {
                    c = StoredValue.compare(x, y)
                }
                if c != 0 { return s.ascending ? c < 0 : c > 0 }
            }
        }
        switch (a.id.primaryKey, b.id.primaryKey) {
        case (let x?, let y?): return x < y
        case (.some, nil): return true
        case (nil, .some): return false
        case (nil, nil): return a.id.key > b.id.key  // temporary keys are negated serials
        }
    }

    /// The parent's (or store's) rows for these IDs. With `skipSelf`, this
    /// context's own objects are not consulted (to fire one of its faults).
    func loadSnapshots(_ ids: [ManagedObjectID], skipSelf: Bool = false) throws(ManagedContextError) -> [ManagedObjectID: RowSnapshot] {
        var result: [ManagedObjectID: RowSnapshot] = [:]
        var missing: [ManagedObjectID] = []
        for id in ids {
            if !skipSelf, let o = registered(id), !o.isFaultFlag, !o.isStale {
                if !o.deletedFlag {
                    result[id] = RowSnapshot(values: o.values, toOne: o.toOne, version: o.snapshot?.version ?? 0)
                }
            } else {
                missing.append(id)
            }
        }
        if missing.isEmpty { return result }
        switch parentStore {
        case .none:
            throw ManagedContextError(.noStore, "\(debugName) has neither a parent nor a persistent store coordinator.")
        case .coordinator(let c):
            let store = try c.store()
            var byEntity: [Int: [(ManagedObjectID, Int64)]] = [:]
            for id in missing {
                let permanent = c.permanent(id)
                guard let pk = permanent.primaryKey, permanent.store == store.identity else { continue }
                byEntity[id.entity.index, default: []].append((id, pk))
            }
            for (_, group) in byEntity {
                let rows = try store.snapshots(entity: group[0].0.entity, primaryKeys: group.map(\.1), in: queryGeneration)
                for (id, pk) in group { if let row = rows[pk] { result[id] = row } }
            }
        case .context(let p):
            let fromParent = try p.performAndWaitTyped { () throws(ManagedContextError) -> [ManagedObjectID: RowSnapshot] in
                try p.confined { () throws(ManagedContextError) -> [ManagedObjectID: RowSnapshot] in try p.loadSnapshots(missing) }
            }
            result.merge(fromParent) { a, _ in a }
        }
        return result
    }

    /// The row of the object `id` as this context sees it (predicate key paths).
    func relatedRow(_ id: ManagedObjectID) -> RowSnapshot? {
        (try? loadSnapshots([id]))?[id]
    }

    /// The rows of `destination` whose to-one `inverse` points to `id` (or to its alias),
    /// as this context sees them: what a to-many predicate counts.
    func rowsPointing(to id: ManagedObjectID, through inverse: RelationshipDescription, of destination: EntityDescription) -> [FetchedRow] {
        if inverse.isToMany, let r = inverse.inverseRelationship, r.join != nil { return linkedRows(id, r) }
        let f = ResolvedFetch(entity: destination, predicate: .toOne(inverse.toOneIndex, id, equal: true), sorts: [], limit: 0, offset: 0)
        var rows = (try? matchingRows(f, applyWindow: false, loadValues: true, includePending: true)) ?? []
        if let alias = persistentStoreCoordinator?.alias(of: id) {
            let g = ResolvedFetch(entity: destination, predicate: .toOne(inverse.toOneIndex, alias, equal: true), sorts: [], limit: 0, offset: 0)
            let seen = Set(rows.map(\.id))
            rows += ((try? matchingRows(g, applyWindow: false, loadValues: true, includePending: true)) ?? []).filter { !seen.contains($0.id) }
        }
        return rows
    }

    /// The objects whose to-one `inverse` of `relationship` points to `object`.
    func objectsRelated(to object: ManagedObject, through relationship: RelationshipDescription) -> [ManagedObject] {
        guard let inverse = relationship.inverseRelationship, let destination = relationship.destinationEntity else { return [] }
        if relationship.join != nil {
            return linkedIDs(object.objectID, relationship).map { resolvedObject(with: $0) }.filter { !$0.deletedFlag }
        }
        let f = ResolvedFetch(
            entity: destination, predicate: .toOne(inverse.toOneIndex, object.objectID, equal: true), sorts: [], limit: 0, offset: 0)
        var rows = (try? matchingRows(f, applyWindow: false, loadValues: true, includePending: true)) ?? []
        if let alias = persistentStoreCoordinator?.alias(of: object.objectID) {
            let g = ResolvedFetch(entity: destination, predicate: .toOne(inverse.toOneIndex, alias, equal: true), sorts: [], limit: 0, offset: 0)
            let seen = Set(rows.map(\.id))
            rows += ((try? matchingRows(g, applyWindow: false, loadValues: true, includePending: true)) ?? []).filter { !seen.contains($0.id) }
        }
        if relationship.isOrdered && relationship.orderAttributeIndex >= 0 {
            // Core Data's order: by Z_FOK_, objects without a place last, in the order
            // they were related (keys, then unsaved objects as they were inserted).
            let key = relationship.orderAttributeIndex
            func place(_ row: FetchedRow) -> Int64? {
                guard let values = row.snapshot?.values, values.indices.contains(key), case .integer(let n) = values[key] else { return nil }
                return n
            }
            rows.sort { a, b in
                switch (place(a), place(b)) {
                case (let x?, let y?) where x != y: return x < y
                case (.some, nil): return true
                case (nil, .some): return false
                default: return Self.precedes(a, b, sorts: [])
                }
            }
        }
        return rows.map { materialize($0.id, $0.snapshot) }.filter { !$0.deletedFlag }
    }
}

/// The result of a fetch: a random-access collection of objects, confined to the
/// fetching context's queue. With a batch size, only the batch being read is held.
public final class FetchedResults<Element: ManagedObject>: RandomAccessCollection {
    /// The context that fetched them: read them on its queue.
    public let context: ManagedObjectContext
    /// The matching objects' IDs, in order.
    public let objectIDs: [ManagedObjectID]
    private var snapshots: [RowSnapshot?]
    private let batchSize: Int
    private let asFaults: Bool
    private var eager: [Element]?
    private var batchStart = -1
    private var batch: [Element] = []

    init(context: ManagedObjectContext, rows: [FetchedRow], batchSize: Int, asFaults: Bool = false) {
        self.context = context
        self.objectIDs = rows.map(\.id)
        self.batchSize = batchSize
        self.asFaults = asFaults
        if batchSize == 0 {
            self.snapshots = []
            self.eager = rows.map { context.materialize($0.id, $0.snapshot, asFault: asFaults) as! Element }
        } else {
            self.snapshots = rows.map(\.snapshot)
        }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { objectIDs.count }

    public subscript(position: Int) -> Element {
        if let eager { return eager[position] }
        return context.operation(.fetch) {
            let start = position - position % batchSize
            if start != batchStart { loadBatch(at: start) }
            return batch[position - start]
        }
    }

    private func loadBatch(at start: Int) {
        let ids = Array(objectIDs[start..<Swift.min(start + batchSize, objectIDs.count)])
        let unregistered = ids.filter { context.registered($0).map { $0.isFaultFlag } ?? true }
        let loaded = (try? context.loadSnapshots(unregistered)) ?? [:]
        batch = ids.map { id in context.materialize(id, loaded[id], asFault: asFaults) as! Element }
        // The objects already loaded were skipped above: missing-merge looks at them here.
        let saves = Diagnostics.saveCount
        for o in batch where loaded[o.objectID] == nil && o.checkedSaveCount != saves {
            context.diagnoseMissingMerge(o, storeVersion: nil, operation: "fetch (batch)")
        }
        batchStart = start
    }
}

/// The unsaved rows an enumeration merges into the store's, in fetch order.
struct PendingRows {
    var rows: [FetchedRow] = []
    var overridden = Set<ManagedObjectID>()
    private var position = 0

    var isEmpty: Bool { overridden.isEmpty }

    /// True for a store row that an unsaved change replaces (or a delete removes).
    func overrides(_ id: ManagedObjectID) -> Bool { !overridden.isEmpty && overridden.contains(id) }

    /// The next unsaved row if it comes before `row`, taken.
    mutating func first(preceding row: FetchedRow, sorts: [ResolvedSort]) -> FetchedRow? {
        guard position < rows.count, ManagedObjectContext.precedes(rows[position], row, sorts: sorts) else { return nil }
        return next()
    }

    mutating func next() -> FetchedRow? {
        guard position < rows.count else { return nil }
        position += 1
        return rows[position - 1]
    }
}

/// `fetchOffset` and `fetchLimit` over rows delivered one at a time.
struct FetchWindow {
    var offset: Int
    let limit: Int
    private var taken = 0

    init(offset: Int, limit: Int) {
        self.offset = offset
        self.limit = limit
    }

    var isFull: Bool { limit > 0 && taken >= limit }
    /// Rows admitted so far.
    var delivered: Int { taken }

    /// Whether the next row is inside the window (counting it if so).
    mutating func admit() -> Bool {
        if offset > 0 { offset -= 1; return false }
        if isFull { return false }
        taken += 1
        return true
    }
}

@available(*, unavailable, message: "Fetched results are confined to their context's queue.")
extension FetchedResults: Sendable {}
