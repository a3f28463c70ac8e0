@_spi(CoreData) public import ManagedContext

/// Core Data's `NSFetchRequestResult`: what a fetch request can return (managed
/// objects, object IDs, dictionaries, numbers).
public protocol NSFetchRequestResult {}
extension ManagedObjectID: NSFetchRequestResult {}
extension NSDictionary: NSFetchRequestResult {}
extension NSNumber: NSFetchRequestResult {}

/// Core Data's `NSManagedObject`: the runtime's managed object with Core Data's
/// key-value access and life-cycle hooks. Subclass it for an entity (after
/// `ctxdebug port`, `@NSManaged` properties become accessors through
/// `value(forKey:)`), or use it as it is.
///
/// Not `Sendable`, as in Core Data: pass `objectID` across queues.
open class NSManagedObject: ManagedObject, NSFetchRequestResult {
    /// Core Data's designated initializer, with the entity as the model describes it:
    /// every object the runtime makes (inserted, fetched, faulted) comes through it, so
    /// a subclass's override runs for each, as in Core Data. `required`: the runtime
    /// makes objects of a class it holds as a metatype, and `Self.init(entity:insertInto:)`
    /// in a protocol extension needs it too. A subclass writes its override as
    /// `required init(entity:insertInto:)` (Swift's spelling for a required
    /// initializer); `ctxdebug port` rewrites `override init(entity:insertInto:)` so, and
    /// gives it to a subclass with initializers of its own that lacks it.
    public required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        guard let compiled = entity.compiled ?? context.flatMap({ c in entity.name.flatMap { c.runtimeModel.entity(named: $0) } }) else {
            preconditionFailure("\(entity) is not in a model a coordinator has loaded. Load the model's store first (NSPersistentContainer.loadPersistentStores).")
        }
        super.init(entity: compiled, insertInto: context)
    }

    /// The runtime's initializer, as the runtime calls it: through Core Data's above.
    public required convenience init(entity: EntityDescription, insertInto context: NSManagedObjectContext?) {
        self.init(entity: NSManagedObjectModel.description(of: entity), insertInto: context)
    }

    /// Inserts a new object of this class's entity into `context`, as Core Data's
    /// `init(context:)`: the entity whose class is this class.
    public convenience init(context: NSManagedObjectContext) {
        if let entity = context.runtimeModel.entityIfDeclared(for: Self.self) {
            self.init(entity: entity, insertInto: context)
            return
        }
        // Entities whose class is not this class by identity (a model read before the
        // class was loaded): the entity named by the class's name.
        let name = String(describing: Self.self)
        guard let entity = context.runtimeModel.entity(named: name) ?? context.runtimeModel.entities.first(where: { ($0.declaration as? NSEntityDescription)?.managedObjectClassName?.split(separator: ".").last.map(String.init) == name }) else {
            preconditionFailure("No NSEntityDescriptions in any model claim the NSManagedObject subclass '\(String(reflecting: Self.self))' so +entity is confused. Have you loaded your NSManagedObjectModel yet?")
        }
        self.init(entity: entity, insertInto: context)
    }

    /// The entity of this class, as Core Data's `entity()`: in the model of a loaded
    /// container that has an entity of this class.
    open class func entity() -> NSEntityDescription {
        guard let found = NSManagedObjectModel.loadedEntity(for: self) else {
            preconditionFailure("No NSEntityDescriptions in any model claim the NSManagedObject subclass '\(String(reflecting: self))' so +entity is confused. Have you loaded your NSManagedObjectModel yet?")
        }
        return found
    }

    /// Core Data's `fetchRequest()`: a request for this class's entity. Swift cannot
    /// cast it to `NSFetchRequest<Mood>` as Objective-C's erased generics can; use
    /// `NSFetchRequest<Mood>(entityName:)`, Xcode's typed `fetchRequest()`, or
    /// `NSFetchRequest<Mood>(request)`.
    open class func fetchRequest() -> NSFetchRequest<any NSFetchRequestResult> {
        NSFetchRequest(entityName: NSManagedObjectModel.loadedEntity(for: self)?.name ?? String(describing: self))
    }

    /// Core Data's `value(forKey:)`: an attribute as Core Data's accessors return it
    /// (numbers and booleans as `NSNumber`, decimals as `NSDecimalNumber`, so `as? Int`
    /// works whatever the attribute's width), a to-one relationship's object, or a
    /// to-many relationship's `NSSet`.
    open override func value(forKey key: String) -> Any? { objectValue(forKey: key) }

    /// Core Data's `setValue(_:forKey:)`, for attributes and relationships alike.
    open override func setValue(_ value: Any?, forKey key: String) { coreDataSetValue(value, forKey: key) }


    /// The entity as the model describes it (Core Data's `entity`). The runtime's
    /// compiled entity is `runtimeEntity`.
    public var entity: NSEntityDescription { NSManagedObjectModel.description(of: runtimeEntity) }
}
