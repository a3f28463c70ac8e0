public import Foundation
import Synchronization

/// The store an objectID belongs to, identified by the store's UUID
/// (`Z_METADATA.Z_UUID`), as in Core Data's `x-coredata://UUID/...` URIs.
package final class StoreIdentity: Sendable, Hashable {
    package let uuid: String
    init(uuid: String) { self.uuid = uuid }
    package static func == (a: StoreIdentity, b: StoreIdentity) -> Bool { a === b || a.uuid == b.uuid }
    package func hash(into hasher: inout Hasher) { hasher.combine(uuid) }
}

/// A managed object's identity, valid in every context of a stack. Sendable:
/// this, not the object, is what crosses queues.
///
/// It is temporary (`isTemporaryID`) for an object inserted and not yet saved
/// to the store, until the save or `obtainPermanentIDs(for:)`.
public struct ManagedObjectID: Hashable, Sendable, CustomStringConvertible {
    /// The entity of the object it names.
    public let entity: EntityDescription
    /// The store, for permanent IDs; nil for temporary ones.
    let store: StoreIdentity?
    /// `Z_PK` for a permanent ID; minus a process-wide serial for a temporary one.
    let key: Int64

    init(entity: EntityDescription, store: StoreIdentity, primaryKey: Int64) {
        precondition(primaryKey > 0)
        self.entity = entity
        self.store = store
        self.key = primaryKey
    }

    private init(temporaryFor entity: EntityDescription, serial: Int64) {
        self.entity = entity
        self.store = nil
        self.key = -serial
    }

    static func makeTemporary(entity: EntityDescription) -> ManagedObjectID {
        ManagedObjectID(temporaryFor: entity, serial: temporarySerial.add(1, ordering: .relaxed).newValue)
    }

    private static let temporarySerial = Atomic<Int64>(0)
    /// Distinguishes this process's temporary IDs in URIs, as Core Data's UUIDs do.
    static let processToken = String(UUID().uuidString.prefix(8))

    /// True for an object inserted and not yet saved: its ID changes at the save.
    public var isTemporaryID: Bool { key < 0 }
    /// `Z_PK`, or nil for a temporary ID.
    @_spi(Runtime) public var primaryKey: Int64? { key > 0 ? key : nil }
    /// The name of its entity.
    public var entityName: String { entity.name }

    /// `x-coredata://STORE-UUID/Entity/pPK`, or `x-coredata:///Entity/tTOKEN-N`
    /// for a temporary ID, as Core Data writes them.
    public func uriRepresentation() -> URL {
        URL(string: uriString)!
    }

    var uriString: String {
        if let store, key > 0 {
            return "x-coredata://\(store.uuid)/\(entity.name)/p\(key)"
        }
        return "x-coredata:///\(entity.name)/t\(Self.processToken)-\(-key)"
    }

    public var description: String { uriString }

    public static func == (a: ManagedObjectID, b: ManagedObjectID) -> Bool {
        a.key == b.key && a.entity === b.entity && a.store == b.store
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(entity.index)
    }

    /// Parses a URI made by `uriRepresentation()`. Returns nil when it is not one,
    /// names an entity the model lacks, or belongs to another store.
    static func parse(_ uri: String, model: ManagedObjectModel, store: StoreIdentity?) -> ManagedObjectID? {
        let prefix = "x-coredata://"
        guard uri.hasPrefix(prefix) else { return nil }
        let rest = uri.dropFirst(prefix.count)
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, let entity = model.entity(named: String(parts[1])) else { return nil }
        let keyPart = parts[2]
        guard let tag = keyPart.first else { return nil }
        let digits = keyPart.dropFirst()
        switch tag {
        case "p":
            guard let store, parts[0] == store.uuid[...], !digits.isEmpty, digits.allSatisfy(\.isASCII),
                let pk = Int64(digits), pk > 0
            else { return nil }
            return ManagedObjectID(entity: entity, store: store, primaryKey: pk)
        case "t":
            guard parts[0].isEmpty else { return nil }
            let token = processToken + "-"
            guard digits.hasPrefix(token), let serial = Int64(digits.dropFirst(token.count)), serial > 0 else {
                return nil
            }
            return ManagedObjectID(temporaryFor: entity, serial: serial)
        default:
            return nil
        }
    }
}

/// The values of one row as a context's parent (or the store) sees them.
struct RowSnapshot: Sendable {
    var values: [StoredValue]
    var toOne: [ManagedObjectID?]
    /// `Z_OPT`, the row version; 0 for an object never saved.
    var version: Int64
}
