public import Foundation

/// Core Data's `NSPersistentHistoryToken`: a bookmark in one store's persistent history,
/// the number of a transaction (its `ATRANSACTION.Z_PK`) in the store of that UUID.
/// Opaque to apps, which keep the last one they processed (archived with
/// `NSKeyedArchiver`, as Apple's "Consuming relevant store changes" does) and ask for
/// the history after it.
///
/// `@unchecked Sendable`: an `NSObject` subclass whose stored properties are `let`
/// constants of Sendable types, set once in `init`.
public final class PersistentHistoryToken: NSObject, NSSecureCoding, @unchecked Sendable {
    /// The store's `Z_METADATA.Z_UUID` (Core Data's `NSStoreUUIDKey`).
    public let storeIdentifier: String
    /// The transaction's number: its row in `ATRANSACTION`.
    public let transactionNumber: Int64

    public init(storeIdentifier: String, transactionNumber: Int64) {
        self.storeIdentifier = storeIdentifier
        self.transactionNumber = transactionNumber
    }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(storeIdentifier as NSString, forKey: "storeIdentifier")
        coder.encode(transactionNumber, forKey: "transactionNumber")
    }

    public init?(coder: NSCoder) {
        guard let store = coder.decodeObject(of: NSString.self, forKey: "storeIdentifier") else { return nil }
        self.storeIdentifier = store as String
        self.transactionNumber = coder.decodeInt64(forKey: "transactionNumber")
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? PersistentHistoryToken else { return false }
        return other.storeIdentifier == storeIdentifier && other.transactionNumber == transactionNumber
    }

    public override var hash: Int { storeIdentifier.hashValue ^ transactionNumber.hashValue }
    public override var description: String { "<PersistentHistoryToken \(storeIdentifier) #\(transactionNumber)>" }
}

/// Core Data's `NSPersistentHistoryChangeType`: the `ACHANGE.ZCHANGETYPE` values.
public enum PersistentHistoryChangeType: Int, Sendable {
    case insert = 0, update = 1, delete = 2
}

/// Core Data's `NSPersistentHistoryChange`: one object's change in one transaction (an
/// `ACHANGE` row).
public struct PersistentHistoryChange: Sendable, Hashable {
    /// `ACHANGE.Z_PK`.
    public let changeID: Int64
    public let changeType: PersistentHistoryChangeType
    public let changedObjectID: ManagedObjectID
    /// The names of the attributes and to-one relationships an update set (nil for an
    /// insert or a delete, as in Core Data).
    public let updatedProperties: Set<String>?
    /// The number of the transaction the change belongs to.
    public let transactionNumber: Int64
    /// A delete's preserved attributes as stored, by name (nil for an insert or an update,
    /// and for an entity that preserves none).
    package var tombstoneValues: [String: StoredValue]? = nil

    /// Core Data's `tombstone`: a delete's attributes marked
    /// `preservesValueInHistoryOnDeletion`, with their values when it was deleted (a
    /// nil value is left out); nil for an insert or an update.
    public var tombstone: [String: Any]? {
        guard let tombstoneValues else { return nil }
        let entity = changedObjectID.entity
        var values: [String: Any] = [:]
        for (name, stored) in tombstoneValues {
            guard let index = entity.attributeIndex(ifPresent: name), let value = entity.attributeTypes[index].swiftValue(stored) else { continue }
            values[name] = value
        }
        return values
    }
}

/// Core Data's `NSPersistentHistoryTransaction`: one save (or batch request) as the
/// store recorded it, in `ATRANSACTION`.
public struct PersistentHistoryTransaction: Sendable, Hashable {
    public let transactionNumber: Int64
    public let token: PersistentHistoryToken
    public let timestamp: Date
    /// The saving context's `transactionAuthor`.
    public let author: String?
    /// The saving context's `name`.
    public let contextName: String?
    /// The bundle identifier of the process that saved (its executable's name when it
    /// has no bundle identifier, as a Linux tool has none).
    public let bundleID: String?
    /// The saving process, as Core Data names it: its process name.
    public let processID: String?
    /// The store's UUID.
    public let storeID: String
    /// The changes, when the request asked for them (nil for transactions only).
    public let changes: [PersistentHistoryChange]?

    /// Core Data's `objectIDNotification()`: a did-save notification holding this
    /// transaction's objectIDs, for `mergeChanges(fromContextDidSave:)`.
    public func objectIDNotification() -> Notification {
        var inserted = Set<ManagedObjectID>(), updated = Set<ManagedObjectID>(), deleted = Set<ManagedObjectID>()
        for change in changes ?? [] {
            switch change.changeType {
            case .insert: inserted.insert(change.changedObjectID)
            case .update: updated.insert(change.changedObjectID)
            case .delete: deleted.insert(change.changedObjectID)
            }
        }
        typealias K = ManagedObjectContext.NotificationKey
        return Notification(
            name: ManagedObjectContext.didSaveObjectIDsNotification, object: nil,
            userInfo: [
                K.insertedObjectIDs.rawValue: inserted, K.updatedObjectIDs.rawValue: updated, K.deletedObjectIDs.rawValue: deleted,
            ])
    }
}

/// Which part of the history a fetch or delete covers (Core Data's
/// `fetchHistory(after:)` and `deleteHistory(before:)` with a token, a date or a transaction).
public enum PersistentHistoryBoundary: Sendable, Hashable {
    /// After (fetch) or up to and including (delete) this token's transaction; nil: all.
    case token(PersistentHistoryToken?)
    /// After (fetch) or before (delete) this date.
    case date(Date)
}
