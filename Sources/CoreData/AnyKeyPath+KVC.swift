import Foundation
@_spi(CoreData) import ManagedContext

extension AnyKeyPath {
    /// Objective-C's `_kvcKeyPathString` for a key path of a managed object class: the
    /// name of the attribute or to-one relationship it reads (`\Person.name` is
    /// `"name"`), which query builders (Kuery, CoreStore) hand to `NSPredicate(format:
    /// "%K …")` and `NSSortDescriptor(key:)`. Found as a typed fetch finds it, on the
    /// entity of the class in a model a coordinator loaded; nil when the root is not a
    /// managed object class, no loaded model has its entity, or the key path reads no
    /// stored property (a computed one, or a chain through several objects).
    public var _kvcKeyPathString: String? {
        guard let root = type(of: self).rootType as? NSManagedObject.Type,
            let entity = NSManagedObjectModel.loadedRuntimeEntity(for: root)
        else { return nil }
        return entity.propertyName(reachedBy: self)
    }
}
