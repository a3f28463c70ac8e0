import Foundation
@_spi(CoreData) public import ManagedContext

extension FetchRequest where Result == ManagedObject {
    /// A runtime fetch request for `entity` from Foundation's predicate and sort
    /// descriptors: what `NSManagedObjectContext.fetch(_: NSFetchRequest)` runs, for
    /// code (the benchmarks) that fetches through the runtime directly.
    @_spi(CoreData) public init(entity: EntityDescription, predicate: NSPredicate?, sortDescriptors: [NSSortDescriptor]) throws(ManagedContextError) {
        self.init()
        self.entity = entity
        self.predicate = try predicate.map { (p) throws(ManagedContextError) in try PredicateTranslation.fetchPredicate(p, entity: entity) }
        self.sortDescriptors = try PredicateTranslation.sortDescriptors(sortDescriptors, entity: entity)
    }
}
