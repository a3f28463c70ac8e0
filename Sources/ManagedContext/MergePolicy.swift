/// Core Data's `NSMergePolicyType`: the five ways a save resolves a conflict, with Core
/// Data's raw values.
public enum MergePolicyType: UInt, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The save fails with a merge-conflict error (133020); the store keeps what it had.
    case errorMergePolicyType = 0
    /// Property by property, the store's changes win over the context's.
    case mergeByPropertyStoreTrumpMergePolicyType = 1
    /// Property by property, the context's changes win over the store's.
    case mergeByPropertyObjectTrumpMergePolicyType = 2
    /// The whole in-memory object is written over the store's row.
    case overwriteMergePolicyType = 3
    /// The context's changes to the conflicting objects are dropped.
    case rollbackMergePolicyType = 4

    public var description: String {
        switch self {
        case .errorMergePolicyType: "error"
        case .mergeByPropertyStoreTrumpMergePolicyType: "mergeByPropertyStoreTrump"
        case .mergeByPropertyObjectTrumpMergePolicyType: "mergeByPropertyObjectTrump"
        case .overwriteMergePolicyType: "overwrite"
        case .rollbackMergePolicyType: "rollback"
        }
    }
}

/// How a save resolves a conflict with what another context saved since the objects
/// were loaded: Core Data's `NSMergePolicy`, a class of one of the five types, shared
/// (`MergePolicy.mergeByPropertyObjectTrump`) or made (`MergePolicy(merge: .rollbackMergePolicyType)`),
/// and subclassable as Core Data's is.
///
/// A subclass that overrides `resolve(optimisticLockingConflicts:)` is called during the
/// save, on the context's queue, with every conflicting object (`MergeConflict.sourceObject`),
/// before anything is written. It may change those objects (their changes are saved); it
/// may throw to fail the save; it calls `super` for the type's own resolution, which then
/// applies to what still conflicts. The base class's method throws the merge-conflict
/// error for the error type and does nothing for the others, whose resolution the store
/// applies in the save's transaction.
///
/// `@unchecked Sendable`: the base class's one stored value is immutable, so a policy is
/// shared between contexts on any queue, as Core Data's are; a subclass that keeps state
/// of its own makes that state safe, as it must on Apple platforms.
open class MergePolicy: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The policy's type: what the base class's resolution does.
    public let mergeType: MergePolicyType

    /// Core Data's `init(merge:)`.
    public init(merge type: MergePolicyType) {
        self.mergeType = type
    }

    /// Core Data's `init(mergeType:)`, the same as `init(merge:)`.
    public convenience init(mergeType type: MergePolicyType) {
        self.init(merge: type)
    }

    /// The shared policies, one of each type (Core Data's class properties).
    public static let error = MergePolicy(merge: .errorMergePolicyType)
    /// Property by property, the store's saved value wins where both changed it.
    public static let mergeByPropertyStoreTrump = MergePolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
    /// Property by property, this context's value wins where both changed it.
    public static let mergeByPropertyObjectTrump = MergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
    /// This context's objects are written whole over what the store has.
    public static let overwrite = MergePolicy(merge: .overwriteMergePolicyType)
    /// This context's conflicting changes are dropped for what the store has.
    public static let rollback = MergePolicy(merge: .rollbackMergePolicyType)

    /// The five shared policies, in the order of their types' raw values.
    public static let shared: [MergePolicy] = [error, mergeByPropertyStoreTrump, mergeByPropertyObjectTrump, overwrite, rollback]

    /// Resolves conflicts with the store found at a save: the objects another context
    /// (or process) saved after this context loaded them. See the type's documentation
    /// for when a subclass's override runs.
    open func resolve(optimisticLockingConflicts list: [MergeConflict]) throws {
        guard mergeType == .errorMergePolicyType, !list.isEmpty else { return }
        throw ManagedContextError.mergeConflict(list, path: nil)
    }

    /// Resolves uniqueness-constraint conflicts found at a save (objects sharing the values
    /// of a constraint, with each other or with the store's row). The base class's throws
    /// Core Data's 133021 for the error type; for the others the store merges each set into
    /// one row (the object's values win for the object-trump types, the row's for the others).
    open func resolve(constraintConflicts list: [ConstraintConflict]) throws {
        guard mergeType == .errorMergePolicyType, !list.isEmpty else { return }
        throw ManagedContextError.constraintConflict(list, path: nil)
    }

    /// Whether a save must hand this policy its conflicts before writing: only a
    /// subclass's resolution needs them; the base class's is applied in the transaction.
    var resolvesConflictsItself: Bool { type(of: self) != MergePolicy.self }

    /// Policies compare by identity, as Core Data's do (NSObject's `isEqual:`): each
    /// shared policy is one object.
    public static func == (a: MergePolicy, b: MergePolicy) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// `mergeByPropertyObjectTrump`, or a subclass's name with its type.
    public var description: String {
        type(of: self) == MergePolicy.self ? mergeType.description : "\(type(of: self)) (\(mergeType))"
    }
}

extension MergePolicy {
    /// Core Data's `NSErrorMergePolicy`.
    public static var errorMergePolicy: MergePolicy { .error }
    /// Core Data's `NSMergeByPropertyStoreTrumpMergePolicy`.
    public static var mergeByPropertyStoreTrumpMergePolicy: MergePolicy { .mergeByPropertyStoreTrump }
    /// Core Data's `NSMergeByPropertyObjectTrumpMergePolicy`.
    public static var mergeByPropertyObjectTrumpMergePolicy: MergePolicy { .mergeByPropertyObjectTrump }
    /// Core Data's `NSOverwriteMergePolicy`.
    public static var overwriteMergePolicy: MergePolicy { .overwrite }
    /// Core Data's `NSRollbackMergePolicy`.
    public static var rollbackMergePolicy: MergePolicy { .rollback }
}

/// Core Data's global merge-policy constants, without the NS prefix, so that
/// `context.mergePolicy = MergeByPropertyObjectTrumpMergePolicy` reads as it does there.
public let ErrorMergePolicy = MergePolicy.error
/// `MergePolicy.mergeByPropertyStoreTrump`.
public let MergeByPropertyStoreTrumpMergePolicy = MergePolicy.mergeByPropertyStoreTrump
/// `MergePolicy.mergeByPropertyObjectTrump`.
public let MergeByPropertyObjectTrumpMergePolicy = MergePolicy.mergeByPropertyObjectTrump
/// `MergePolicy.overwrite`.
public let OverwriteMergePolicy = MergePolicy.overwrite
/// `MergePolicy.rollback`.
public let RollbackMergePolicy = MergePolicy.rollback
