/// Gives every `ManagedObject` subclass Core Data's generated class method
/// `fetchRequest()`: `Sample.fetchRequest()` is a `FetchRequest<Sample>`.
public protocol FetchRequestProviding: ManagedObject {}

extension ManagedObject: FetchRequestProviding {}

extension FetchRequestProviding {
    /// A fetch request for every object of this entity, as Core Data's generated
    /// `fetchRequest()` of a managed object subclass.
    public static func fetchRequest() -> FetchRequest<Self> { FetchRequest<Self>() }
}
