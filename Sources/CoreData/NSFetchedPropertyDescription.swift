@_spi(CoreData) import ManagedContext

/// Core Data's `NSFetchedPropertyDescription`: a weak, one-way relationship defined by a
/// fetch request. Read with `value(forKey:)`, it runs its request in the object's context
/// with `$FETCH_SOURCE` standing for the object and `$FETCHED_PROPERTY` for this
/// description, and gives the results as an array. As Apple documents it, "a fetched
/// property is not fetched until it is requested, and the results are then cached until
/// the object is turned into a fault": `refresh(_:mergeChanges:)` makes the next read
/// fetch again. It has no column in the store.
open class NSFetchedPropertyDescription: NSPropertyDescription, @unchecked Sendable {
    open var fetchRequest: NSFetchRequest<any NSFetchRequestResult>?
}

extension NSManagedObject {
    /// The fetched property of the object's entity named `key`, if it has one.
    func fetchedProperty(named key: String) -> NSFetchedPropertyDescription? {
        // Up the entity tree without building the inherited list (`allProperties`).
        var entity: NSEntityDescription? = NSManagedObjectModel.description(of: runtimeEntity)
        while let current = entity {
            for property in current.properties where property.name == key { return property as? NSFetchedPropertyDescription }
            entity = current.superentity
        }
        return nil
    }

    /// `value(forKey:)` of a fetched property: the cached results, or its request run now
    /// (nil for an object in no context, as there is nothing to fetch from).
    func fetchedValue(of property: NSFetchedPropertyDescription) -> Any? {
        if let cached = fetchedPropertyValues?[property.name] { return cached }
        guard let context = managedObjectContext else { return nil }
        guard let template = property.fetchRequest, template.entityName != nil || template.entity != nil else {
            preconditionFailure("Fetched property \(runtimeEntity.name).\(property.name) has no fetch request with an entity: give it one (fetchRequest, or the destination in Xcode's model editor).")
        }
        let request = NSFetchRequest<any NSFetchRequestResult>(template)
        request.predicate = template.predicate?.withSubstitutionVariables(["FETCH_SOURCE": self, "FETCHED_PROPERTY": property])
        let results: [Any]
        do {
            results = try context.fetch(request)
        } catch {
            preconditionFailure("The fetch of fetched property \(runtimeEntity.name).\(property.name) failed: \(error)")
        }
        fetchedPropertyValues = (fetchedPropertyValues ?? [:]).merging([property.name: results]) { _, new in new }
        return results
    }
}
