import GRDB

/// Core Data's query generation: a store as it was when the generation was made, which a
/// pinned context's fetches and faults read however the store changes after. A read
/// transaction held open on a connection of its own (GRDB's `DatabaseSnapshot`), so
/// SQLite's WAL keeps every page it sees; released when no context and no token holds it.
@_spi(CoreData) public final class QueryGeneration: @unchecked Sendable {
    let store: SQLiteStore
    let snapshot: DatabaseSnapshot

    init(store: SQLiteStore, snapshot: DatabaseSnapshot) {
        self.store = store
        self.snapshot = snapshot
    }
}

extension ManagedObjectContext {
    /// The generation this context reads, or nil for the latest (Core Data's default).
    @_spi(CoreData) public var pinnedGeneration: QueryGeneration? { queryGeneration }

    /// Pins this context to `generation` (nil: unpins it). Core Data's
    /// `setQueryGenerationFrom(_:)`; `current` pins it to the store as it is now.
    @_spi(CoreData) public func pin(to generation: QueryGeneration?, current: Bool) throws(ManagedContextError) {
        if !current {
            if let generation, let store = try? persistentStoreCoordinator?.store(), generation.store !== store {
                throw ManagedContextError(.invalidFetchRequest, "The query generation token is of another store than \(debugName)'s. Pass a token from a context of the same coordinator, or NSQueryGenerationToken.current.")
            }
            queryGeneration = generation
            return
        }
        queryGeneration = try coordinator.store().currentGeneration()
    }

    /// A pinned context moves to the store's latest generation when it saves, merges
    /// another context's save or is reset, as Core Data's does.
    func advanceQueryGeneration() {
        guard queryGeneration != nil, let store = try? persistentStoreCoordinator?.store() else { return }
        queryGeneration = try? store.currentGeneration()
    }
}
