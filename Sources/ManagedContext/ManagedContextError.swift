import Foundation

/// An error of the runtime: a code, a message that says what went wrong and what
/// to do, the file involved, and the underlying cause.
///
/// Match on the code: `catch ManagedContextError.Code.schemaMismatch { }`, or
/// `catch let e as ManagedContextError where e.code == .schemaMismatch`.
public struct ManagedContextError: Error, CustomStringConvertible, Sendable {
    /// An extensible set of codes: new ones don't break a `switch` with `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case notAStore = "not-a-store"
            case corruptStore = "corrupt-store"
            case schemaMismatch = "schema-mismatch"
            case migrationFailed = "migration-failed"
            case migrationConstraintViolation = "migration-constraint-violation"
            case directoryMissing = "directory-missing"
            case directoryUnwritable = "directory-unwritable"
            case storeOpenFailed = "store-open-failed"
            case noStore = "no-store"
            case readOnlyStore = "read-only-store"
            case saveFailed = "save-failed"
            case mergeConflict = "merge-conflict"
            case constraintConflict = "constraint-conflict"
            case objectNotFound = "object-not-found"
            case invalidFetchRequest = "invalid-fetch-request"
            case invalidObjectID = "invalid-object-id"
            case fetchFailed = "fetch-failed"
            case seedFailed = "seed-failed"
            case validationFailed = "validation-failed"
            case historyTokenExpired = "history-token-expired"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The file is not an SQLite database (or is empty or cut short).
        public static let notAStore = Code(.notAStore)
        /// SQLite reports the database as malformed.
        public static let corruptStore = Code(.corruptStore)
        /// The database is SQLite but its tables do not fit the model.
        public static let schemaMismatch = Code(.schemaMismatch)
        /// The store does not fit the model and a lightweight migration could not make it
        /// fit (Core Data's 134110); the store is as it was.
        public static let migrationFailed = Code(.migrationFailed)
        /// The store's rows break a uniqueness constraint of the model (Core Data's
        /// 134111): the store is as it was.
        public static let migrationConstraintViolation = Code(.migrationConstraintViolation)
        /// The store's folder does not exist, and its parent neither (a wrong path).
        public static let directoryMissing = Code(.directoryMissing)
        /// The store's folder could not be made or written.
        public static let directoryUnwritable = Code(.directoryUnwritable)
        /// The store could not be opened: no file there to read, a file SQLite cannot
        /// open, or a model the runtime cannot use.
        public static let storeOpenFailed = Code(.storeOpenFailed)
        /// The context has neither a parent nor a coordinator with a store.
        public static let noStore = Code(.noStore)
        /// A save to a store opened read-only.
        public static let readOnlyStore = Code(.readOnlyStore)
        /// The store refused a save (SQLite's error is the `cause`).
        public static let saveFailed = Code(.saveFailed)
        /// Optimistic locking failed under the `error` merge policy.
        public static let mergeConflict = Code(.mergeConflict)
        /// Uniqueness constraints failed under the `error` merge policy (Core Data's 133021).
        public static let constraintConflict = Code(.constraintConflict)
        /// No row for the object ID in the store (`existingObject(with:)`): deleted, or
        /// never saved.
        public static let objectNotFound = Code(.objectNotFound)
        /// A fetch request the model cannot answer: an unknown entity, key or property.
        public static let invalidFetchRequest = Code(.invalidFetchRequest)
        /// An object ID the context cannot use (Core Data's 133000); no call of this
        /// runtime throws it today.
        public static let invalidObjectID = Code(.invalidObjectID)
        /// The store failed a fetch (SQLite's error is the `cause`).
        public static let fetchFailed = Code(.fetchFailed)
        /// A seed store could not be copied into place.
        public static let seedFailed = Code(.seedFailed)
        /// An object's validation stopped a save (a missing required value, or its own
        /// `validateForInsert`/`Update`/`Delete`).
        public static let validationFailed = Code(.validationFailed)
        /// A history request's token is older than the history left in the store (it was
        /// deleted past it): Core Data's `NSPersistentHistoryTokenExpiredError`.
        public static let historyTokenExpired = Code(.historyTokenExpired)

        public var description: String { base.rawValue }

        /// `catch ManagedContextError.Code.mergeConflict { }`, as GRDB's
        /// `catch DatabaseError.SQLITE_CONSTRAINT`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? ManagedContextError)?.code == code
        }
    }

    /// What kind of failure: match it with `catch ManagedContextError.Code.X`.
    public let code: Code
    /// What went wrong and what to do, in words.
    public let message: String
    /// The store file (or folder) concerned, when there is one.
    public let path: String?
    /// The error underneath (SQLite's, the file system's), when there is one.
    public let cause: (any Error & Sendable)?
    /// For merge conflicts: each conflicting object.
    public let conflicts: [MergeConflict]
    /// For uniqueness-constraint conflicts: each set of objects sharing a constraint's values.
    public let constraintConflicts: [ConstraintConflict]
    /// For validation failures: what failed, on which object.
    public let validation: ValidationFailure?

    /// An error of `code` saying `message`, with what it concerns.
    public init(
        _ code: Code, _ message: String, path: String? = nil, cause: (any Error & Sendable)? = nil, conflicts: [MergeConflict] = [],
        constraintConflicts: [ConstraintConflict] = [], validation: ValidationFailure? = nil
    ) {
        self.constraintConflicts = constraintConflicts
        self.code = code
        self.message = message
        self.path = path
        self.cause = cause
        self.conflicts = conflicts
        self.validation = validation
    }

    /// Optimistic locking failed: Core Data's 133020, with each conflict.
    static func mergeConflict(_ conflicts: [MergeConflict], path: String?) -> ManagedContextError {
        ManagedContextError(
            .mergeConflict,
            "Save failed: \(conflicts.count) object(s) changed in the store since this context loaded them (optimistic locking). Merge the other save first, refresh the objects, or set a merge policy.\n  " + conflicts.map(\.description).joined(separator: "\n  "),
            path: path, conflicts: conflicts)
    }

    /// The same error, its conflicts able to name their objects in `context`.
    func attachingConflicts(to context: ManagedObjectContext) -> ManagedContextError {
        ManagedContextError(
            code, message, path: path, cause: cause, conflicts: conflicts.map { $0.attached(to: context) },
            constraintConflicts: constraintConflicts.map { $0.attached(to: context) }, validation: validation)
    }

    public var description: String {
        var s = "\(message)"
        if let path { s += " [\(path)]" }
        if let cause { s += " (cause: \(cause))" }
        return s
    }
}

/// One object that another context (or process) changed in the store after this
/// context loaded it: Core Data's `NSMergeConflict`, a value here.
public struct MergeConflict: Sendable, CustomStringConvertible {
    /// The object in conflict.
    public let objectID: ManagedObjectID
    /// The saving context, once the save hands the conflict on (to a merge policy's
    /// `resolve`, or in its error): where `sourceObject` is found.
    private(set) var context: ManagedObjectContext?
    /// The version (`Z_OPT`) the context had when it loaded the object.
    public let oldVersion: Int64
    /// The version now in the store; 0 when the row was deleted.
    public let newVersion: Int64
    /// The store's values when the conflict was found (empty when deleted), by attribute.
    package let storeValues: [String: StoredValue]
    /// The context's values, by attribute.
    package let objectValues: [String: StoredValue]

    /// The store's values when the conflict was found, as Core Data's
    /// `NSMergeConflict.persistedSnapshot`: Swift values, `NSNull` for nil; nil when
    /// the row was deleted.
    public var persistedSnapshot: [String: Any]? {
        newVersion == 0 ? nil : snapshot(storeValues)
    }

    /// The context's values, as `NSMergeConflict.objectSnapshot`.
    public var objectSnapshot: [String: Any]? {
        objectValues.isEmpty ? nil : snapshot(objectValues)
    }

    private func snapshot(_ values: [String: StoredValue]) -> [String: Any] {
        var result: [String: Any] = [:]
        for (name, value) in values {
            let type = objectID.entity.attribute(named: name)?.attributeType
            result[name] = type?.swiftValue(value) ?? NSNull()
        }
        return result
    }

    package init(
        objectID: ManagedObjectID, oldVersion: Int64, newVersion: Int64, storeValues: [String: StoredValue], objectValues: [String: StoredValue]
    ) {
        self.objectID = objectID
        self.oldVersion = oldVersion
        self.newVersion = newVersion
        self.storeValues = storeValues
        self.objectValues = objectValues
    }

    func attached(to context: ManagedObjectContext) -> MergeConflict {
        var copy = self
        copy.context = context
        return copy
    }

    /// The conflicting object, in the saving context (Core Data's `sourceObject`). Read it
    /// on that context's queue, as any of its objects: a merge policy's `resolve` runs there.
    public var sourceObject: ManagedObject {
        guard let context else {
            preconditionFailure("this conflict was not handed on by a save, so it knows no context: \(self)")
        }
        return context.object(with: objectID)
    }

    /// Core Data's `oldVersionNumber`: the version the context loaded.
    public var oldVersionNumber: Int { Int(oldVersion) }
    /// Core Data's `newVersionNumber`: the store's version now; 0 when the row was deleted.
    public var newVersionNumber: Int { Int(newVersion) }
    /// Core Data's `cachedSnapshot`: the coordinator's cached row. Rows are not cached
    /// apart from the store here, so it is the store's row, as `persistedSnapshot`.
    public var cachedSnapshot: [String: Any]? { persistedSnapshot }

    public var description: String {
        newVersion == 0
            ? "\(objectID): loaded at version \(oldVersion), deleted in the store since"
            : "\(objectID): loaded at version \(oldVersion), the store has version \(newVersion)"
    }
}

/// What a failed validation was about.
public struct ValidationFailure: Sendable {
    /// Why the validation failed.
    public enum Kind: Sendable, Hashable {
        /// A non-optional attribute has no value (Core Data's 1570).
        case missingMandatoryProperty
        /// The object's own `validateFor…` threw.
        case custom
    }
    /// Why it failed.
    public let kind: Kind
    /// The attribute, when one is at fault.
    public let key: String?
    /// The object that failed.
    public let objectID: ManagedObjectID
}

/// An error from user code, kept as its description (it may not be Sendable).
struct SendableErrorDescription: Error, Sendable, CustomStringConvertible {
    let description: String
    init(_ error: any Error) { description = String(describing: error) }
}

extension ManagedContextError {
    /// What `save()` threw, as the runtime's error: that error, or (from a subclass's
    /// override of `save()`, which may throw its own) a `.saveFailed` caused by it.
    /// `save()` is untyped, as Core Data's is, so that an override can throw.
    public init(saving error: any Error) {
        if let runtimeError = error as? ManagedContextError {
            self = runtimeError
        } else {
            self.init(.saveFailed, "Save failed: \(error)", cause: error)
        }
    }
}
