import ConcurrencyDebug
import CtxdebugHelpers
import Foundation

/// Dictionary results (`resultType = .dictionaryResultType`), Core Data's answer for
/// bulk reads: the values of `propertiesToFetch`, one `FetchedDictionary` per row, no
/// managed object made or registered.
///
/// As in Core Data, dictionary results reflect the current state of the persistent
/// store and do not take into account the context's pending changes, insertions or
/// deletions (Apple: `includesPendingChanges`, "A value of YES is not supported in
/// conjunction with NSDictionaryResultType"): unsaved changes are not included, in
/// this context or in its parents; save first to see them. A child context reads its
/// coordinator's store directly, without its parent's queue.
///
/// Both methods are context accesses, checked, journaled and diagnosed as `fetch`.
extension ManagedObjectContext {
    /// The rows matching `request` as dictionaries, all at once. `request.resultType`
    /// must be `.dictionaryResultType`. `fetchBatchSize` has no effect here: Apple
    /// documents batching as recording "the identities of all matching objects" and
    /// faulting batches in by them, and dictionary rows have no identity to fault by.
    /// For a pass over many rows in flat memory, use `enumerateDictionaries(for:using:)`.
    public func fetchDictionaries<T: ManagedObject>(_ request: FetchRequest<T>) throws(ManagedContextError) -> [FetchedDictionary] {
        try operation(.fetch) { () throws(ManagedContextError) -> [FetchedDictionary] in
            let span = ContextInstrumentation.begin(.fetch, self)
            defer { span.end() }
            let started = concurrencyType == .mainQueue ? MonotonicClock.now() : 0
            let (entity, stream, keys) = try openDictionaryStream(request)
            defer { stream.close() }
            var rows: [FetchedDictionary] = []
            var row = FetchedDictionary(keyTable: keys)
            while try stream.next(into: &row.values) { rows.append(row) }
            diagnoseMainQueueIO("fetch of \(entity.name) dictionaries", rows: rows.count, started: started)
            return rows
        }
    }

    /// Calls `body` with each row matching `request` as a dictionary, in the request's
    /// order, read one at a time from one query: `fetchDictionaries` without holding
    /// the rows, so memory stays flat however many rows match (an export). A row
    /// `body` does not keep lends its storage to the next one.
    ///
    /// This, and not a batched lazy collection, is the streaming form: a batched
    /// collection (`fetchBatchSize`) records every match's identity up front and
    /// faults batches in by it (an ID list and an `IN` query per batch: the export's
    /// old, 3× slower path), and dictionary rows have no identity; the single pass is
    /// what `enumerateObjects(for:using:)` already is for objects.
    public func enumerateDictionaries<T: ManagedObject>(for request: FetchRequest<T>, using body: (FetchedDictionary) throws -> Void) throws {
        try operation(.fetch) { () throws in try streamDictionaries(request, body) }
    }

    /// The dictionary fetch, checked already.
    private func streamDictionaries<T: ManagedObject>(_ request: FetchRequest<T>, _ body: (FetchedDictionary) throws -> Void) throws {
        let span = ContextInstrumentation.begin(.fetch, self)
        defer { span.end() }
        let started = concurrencyType == .mainQueue ? MonotonicClock.now() : 0
        let (entity, stream, keys) = try openDictionaryStream(request)
        defer { stream.close() }
        var row = FetchedDictionary(keyTable: keys)
        var delivered = 0
        while try stream.next(into: &row.values) {
            try body(row)
            delivered += 1
        }
        diagnoseMainQueueIO("fetch of \(entity.name) dictionaries", rows: delivered, started: started)
    }

    /// The query of a dictionary fetch, open, or the error that says why `request` is not one.
    private func openDictionaryStream<T: ManagedObject>(
        _ request: FetchRequest<T>
    ) throws(ManagedContextError) -> (EntityDescription, SQLiteStore.ColumnStream, FetchedDictionaryKeys) {
        guard request.resultType == .dictionaryResultType else {
            throw ManagedContextError(
                .invalidFetchRequest,
                "fetchDictionaries and enumerateDictionaries need request.resultType = .dictionaryResultType (it is .\(request.resultType)). Set it, or call fetch(_:) for objects.")
        }
        let f = try PredicateResolution.resolve(request, entity: entity(of: request))
        guard let coordinator = persistentStoreCoordinator else {
            throw ManagedContextError(.noStore, "\(debugName) has neither a parent nor a persistent store coordinator. Set one before fetching.")
        }
        let store = try coordinator.store()
        let (keys, columns) = try FetchedDictionaryKeys.resolve(request.propertiesToFetch, entity: f.entity, store: store.identity)
        let distinct = request.returnsDistinctResults && request.propertiesToFetch != nil
        return (f.entity, try store.columnStream(f, columns: columns, distinct: distinct), keys)
    }
}
