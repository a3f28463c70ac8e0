@_spi(CoreData) import ManagedContext

/// Turns Foundation predicates and sort descriptors into the runtime's, for one entity.
/// (The predicate language itself, `NSPredicate(format:)`, is being written; until then
/// only `NSPredicate(value:)` translates.)
enum PredicateTranslation {
    static func fetchPredicate(_ predicate: NSPredicate, entity: EntityDescription) throws(ManagedContextError) -> FetchPredicate<ManagedObject> {
        if predicate == NSPredicate(value: true) { return .all }
        if predicate == NSPredicate(value: false) { return .none }
        throw ManagedContextError(.invalidFetchRequest, "The predicate \(predicate) cannot be run by the store.")
    }

    static func sortDescriptors(_ descriptors: [NSSortDescriptor], entity: EntityDescription) throws(ManagedContextError) -> [FetchSortDescriptor<ManagedObject>] {
        if descriptors.isEmpty { return [] }
        throw ManagedContextError(.invalidFetchRequest, "Sort descriptors on a fetch of \(entity.name) cannot be run yet.")
    }
}
