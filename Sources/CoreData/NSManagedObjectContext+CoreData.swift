@_spi(CoreData) public import ManagedContext

/// Core Data's fetch and lookup API on the runtime's context.
extension ManagedObjectContext {
    /// Core Data's `fetch(_:)`: the request's results as its result type asks
    /// (objects, object IDs, dictionaries, or a count as one `NSNumber`).
    public func fetch<T>(_ request: NSFetchRequest<T>) throws -> [T] {
        let entity = try runtimeEntity(of: request)
        let runtimeRequest = try runtimeRequest(request, entity: entity)
        switch request.resultType {
        case .managedObjectIDResultType:
            return try fetchObjectIDs(runtimeRequest).map { try cast($0, request) }
        case .countResultType:
            return [try cast(NSNumber(value: try count(for: runtimeRequest)), request)]
        case .dictionaryResultType:
            if AggregateFetch.applies(to: request) {
                return try AggregateFetch(request).run(in: self, base: runtimeRequest).map { try cast(NSDictionary(dictionary: $0), request) }
            }
            var dictionaryRequest = runtimeRequest
            dictionaryRequest.resultType = .dictionaryResultType
            dictionaryRequest.propertiesToFetch = request.propertiesToFetch?.map { ($0 as? NSPropertyDescription)?.name ?? "\($0)" }
            dictionaryRequest.returnsDistinctResults = request.returnsDistinctResults
            return try fetchDictionaries(dictionaryRequest).map { row in try cast(NSDictionary(dictionary: row.dictionary), request) }
        default:
            guard !request.includesPropertyValues || request.shouldRefreshRefetchedObjects else {
                return try fetch(runtimeRequest).map { try cast($0, request) }
            }
            let held = Set(registeredObjects.map(ObjectIdentifier.init))
            let objects = try fetch(runtimeRequest)
            for object in objects {
                if !held.contains(ObjectIdentifier(object)) {
                    // The fetch's new objects are faults; those the context held keep their state.
                    if !request.includesPropertyValues { object.becomeFaultAfterFetch() }
                } else if request.shouldRefreshRefetchedObjects && !object.hasChanges {
                    // Held objects take the store's current values (their own changes stay).
                    refresh(object, mergeChanges: true)
                }
            }
            return try objects.map { try cast($0, request) }
        }
    }

    /// Core Data's `assign(_:to:)`: the store a newly inserted object is saved in. A
    /// coordinator here has one store, so only that store can be named.
    public func assign(_ object: Any, to store: NSPersistentStore) {
        precondition(
            persistentStoreCoordinator?.persistentStores.contains(store) == true,
            "Can't assign an object to a store that is not in this context's coordinator (\(store.url?.path ?? "no URL")). Add the store to the coordinator first.")
    }

    /// Core Data's `count(for:)`.
    public func count<T>(for request: NSFetchRequest<T>) throws -> Int {
        let entity = try runtimeEntity(of: request)
        return try count(for: runtimeRequest(request, entity: entity))
    }

    /// The runtime's entity for a request: the entity it holds, or the one it names.
    private func runtimeEntity<T>(of request: NSFetchRequest<T>) throws -> EntityDescription {
        if let compiled = request.entity?.compiled, runtimeModel.entities.contains(where: { $0 === compiled }) { return compiled }
        guard let name = request.entityName ?? request.entity?.name else {
            throw ManagedContextError(.invalidFetchRequest, "A fetch request must have an entity. Make it with NSFetchRequest(entityName:) or Entity.fetchRequest().")
        }
        guard let entity = runtimeModel.entity(named: name) else {
            throw ManagedContextError(
                .invalidFetchRequest,
                "The fetch request names the entity '\(name)', which this context's model does not have (it has \(runtimeModel.entities.map(\.name).joined(separator: ", "))).")
        }
        return entity
    }

    private func runtimeRequest<T>(_ request: NSFetchRequest<T>, entity: EntityDescription) throws -> FetchRequest<ManagedObject> {
        var r = FetchRequest<ManagedObject>()
        r.entity = entity
        if let predicate = request.predicate { r.predicate = try PredicateTranslation.fetchPredicate(predicate, entity: entity) }
        if let sorts = request.sortDescriptors { r.sortDescriptors = try PredicateTranslation.sortDescriptors(sorts, entity: entity) }
        r.fetchLimit = request.fetchLimit
        r.fetchOffset = request.fetchOffset
        r.fetchBatchSize = request.fetchBatchSize
        r.includesPendingChanges = request.includesPendingChanges
        r.includesSubentities = request.includesSubentities
        r.returnsObjectsAsFaults = request.returnsObjectsAsFaults && request.resultType == .managedObjectResultType
        return r
    }

    private func cast<T, R>(_ value: Any, _ request: NSFetchRequest<R>) throws -> T {
        guard let typed = value as? T else {
            throw ManagedContextError(
                .invalidFetchRequest,
                "The fetch of \(request.entityName ?? "an entity") returned \(type(of: value)), which is not the request's result type \(T.self). Check the entity's class (representedClassName) and the request's resultType.")
        }
        return typed
    }
}
