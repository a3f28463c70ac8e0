import CtxdebugHelpers
import Foundation

/// Keys of the variables a mapping's value expressions see (Core Data's constants).
public let NSMigrationManagerKey = "manager"
public let NSMigrationSourceObjectKey = "source"
public let NSMigrationDestinationObjectKey = "destination"
public let NSMigrationEntityMappingKey = "entityMapping"
public let NSMigrationPropertyMappingKey = "propertyMapping"
public let NSMigrationEntityPolicyKey = "entityPolicy"

/// Core Data's `NSEntityMigrationPolicy`: what a migration does for the instances of one
/// entity mapping, in Core Data's three stages (instances, then relationships, then
/// validation). Subclass it and name the subclass in the entity mapping
/// (`entityMigrationPolicyClassName`) to split, merge or compute values.
///
/// On Linux no Objective-C runtime sends `FUNCTION($entityPolicy, "selector:", …)` to the
/// policy: override `perform(function:arguments:)` to answer the selectors your value
/// expressions name.
open class NSEntityMigrationPolicy: NSObject {
    public required override init() {}

    open func begin(_ mapping: NSEntityMapping, with manager: NSMigrationManager) throws {}

    /// Core Data's default: one destination instance of the mapping's destination entity,
    /// its attributes set from the attribute mappings' value expressions, associated with
    /// `sInstance`.
    open func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        guard let name = mapping.destinationEntityName else { return }
        let destination = NSEntityDescription.insertNewObject(forEntityName: name, into: manager.destinationContext)
        try manager.applyAttributeMappings(mapping, source: sInstance, destination: destination, policy: self)
        manager.associate(sourceInstance: sInstance, withDestinationInstance: destination, for: mapping)
    }

    open func endInstanceCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Core Data's default: the destination instance's relationships set from the
    /// relationship mappings' value expressions (evaluated with its source instance).
    open func createRelationships(forDestination dInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        try manager.applyRelationshipMappings(mapping, destination: dInstance, policy: self)
    }

    open func endRelationshipCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    open func performCustomValidation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    open func end(_ mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// The answer to `FUNCTION($entityPolicy, "selectorName", arguments…)` in a value
    /// expression. The default knows no selector and says so.
    open func perform(function selectorName: String, arguments: [Any?]) throws -> Any? {
        throw MigrationFailure(
            NSEntityMigrationPolicyError,
            "The entity policy \(type(of: self)) was sent \"\(selectorName)\" by a value expression, and Linux has no Objective-C runtime to find that method: override perform(function:arguments:) in \(type(of: self)) and answer \"\(selectorName)\" there.")
    }

    // MARK: Finding a policy class by name

    private static let registered = LockedValue<[String: NSEntityMigrationPolicy.Type]>([:])

    /// Registers a policy class under its name (unqualified and module-qualified), so a
    /// mapping model's `entityMigrationPolicyClassName` finds it, as `NSClassFromString`
    /// does on Apple platforms.
    public static func register(_ policyClass: NSEntityMigrationPolicy.Type) {
        let qualified = String(reflecting: policyClass)
        registered.withLock { r in
            r[qualified] = policyClass
            r[qualified.split(separator: ".").last.map(String.init) ?? qualified] = policyClass
        }
    }

    /// The policy a mapping names, a new instance (Core Data makes one per mapping).
    static func policy(for mapping: NSEntityMapping) throws -> NSEntityMigrationPolicy {
        guard let name = mapping.entityMigrationPolicyClassName, !name.isEmpty, name != "NSEntityMigrationPolicy" else { return NSEntityMigrationPolicy() }
        if let found = registered.withLock({ $0[name] }) { return found.init() }
        if let cls = NSClassFromString(name) as? NSEntityMigrationPolicy.Type { return cls.init() }
        throw MigrationFailure(
            NSEntityMigrationPolicyError,
            "The entity mapping \(mapping.name ?? "") names the migration policy class \(name), which this program does not have: check the name (module-qualified, MyApp.\(name)), or call NSEntityMigrationPolicy.register(\(name).self) before migrating.")
    }
}

/// A migration error as Core Data reports it: `NSCocoaErrorDomain` and Core Data's code
/// (`NSMigrationError` 134110, `NSMigrationMissingSourceModelError` 134130, …).
public struct MigrationFailure: Error, CustomNSError, CustomStringConvertible {
    public let errorCode: Int
    public let message: String
    public let underlying: (any Error)?
    public static var errorDomain: String { NSCocoaErrorDomain }

    init(_ code: Int, _ message: String, underlying: (any Error)? = nil) {
        (errorCode, self.message, self.underlying) = (code, message, underlying)
    }

    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let underlying { info[NSUnderlyingErrorKey] = underlying as NSError }
        return info
    }

    public var description: String { "\(message) (Core Data error \(errorCode))" }
}
