import Foundation

/// The keys of a dictionary fetch, shared by all its rows, as Core Data's
/// `NSKnownKeysDictionary` rows share theirs: each row stores only its values, flat,
/// at the keys' positions.
public final class FetchedDictionaryKeys: Sendable, CustomStringConvertible {
    /// The fetched properties' names, in `propertiesToFetch` order.
    public let names: [String]
    private let positions: [String: Int]
    let kinds: [Kind]
    let store: StoreIdentity

    enum Kind: Sendable {
        case attribute(AttributeType)
        /// A to-one relationship: the value is the destination's primary key.
        case toOne(EntityDescription)
    }

    init(names: [String], kinds: [Kind], store: StoreIdentity) {
        self.names = names
        self.kinds = kinds
        self.store = store
        self.positions = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// The position of `key` among `names`; the same in every row of the fetch.
    public func position(of key: String) -> Int? { positions[key] }

    public var description: String { names.description }

    /// The keys of `propertiesToFetch` (every attribute when nil) of `entity`, and
    /// their columns, or an `invalidFetchRequest` error naming what is wrong.
    static func resolve(
        _ propertiesToFetch: [String]?, entity: EntityDescription, store: StoreIdentity
    ) throws(ManagedContextError) -> (keys: FetchedDictionaryKeys, columns: [String]) {
        guard let propertiesToFetch else {
            let attributes = entity.attributes.filter { !$0.isOrderKey }
            let keys = FetchedDictionaryKeys(
                names: attributes.map(\.name), kinds: attributes.map { .attribute($0.attributeType) }, store: store)
            return (keys, attributes.map(\.columnName))
        }
        guard !propertiesToFetch.isEmpty else {
            throw ManagedContextError(.invalidFetchRequest, "propertiesToFetch of a \(entity.name) fetch is empty: name at least one property, or set it to nil for every attribute.")
        }
        var kinds: [Kind] = [], columns: [String] = []
        for name in propertiesToFetch {
            if let a = entity.attribute(named: name) {
                kinds.append(.attribute(a.attributeType))
                columns.append(a.columnName)
            } else if let r = entity.relationship(named: name), !r.isToMany, let destination = r.destinationEntity {
                kinds.append(.toOne(destination))
                columns.append(r.columnName)
            } else {
                let why = entity.relationship(named: name) != nil ? "is a to-many relationship (Core Data raises for those too)" : "is not an attribute or a to-one relationship of \(entity.name)"
                throw ManagedContextError(.invalidFetchRequest, "propertiesToFetch names '\(name)', which \(why). Name attributes and to-one relationships only.")
            }
        }
        return (FetchedDictionaryKeys(names: propertiesToFetch, kinds: kinds, store: store), columns)
    }
}

/// One row of a dictionary fetch (`resultType = .dictionaryResultType`): the values of
/// the request's `propertiesToFetch`, read like Core Data's result dictionaries.
///
/// ```swift
/// let date = row["date"] as? Date            // Any?, as NSDictionary's subscript
/// let rating = row.value(forKey: "rating", as: Int16.self)
/// for (key, value) in row { print(key, value) }
/// ```
///
/// As in Core Data, a nil value has no key: `row["location"]` is nil, `count` leaves it
/// out and iteration skips it. A to-one relationship's value is the related object's
/// `ManagedObjectID`. The keys are shared by every row of the fetch (`keyTable`), and
/// the values are stored flat, so a row costs its values and nothing more. Rows are
/// values: they may be kept, and sent to another queue (they hold no managed object).
public struct FetchedDictionary: Sendable, Sequence {
    /// The fetch's keys, shared by all its rows.
    public let keyTable: FetchedDictionaryKeys
    @usableFromInline package var values: [StoredValue]

    init(keyTable: FetchedDictionaryKeys) {
        self.keyTable = keyTable
        self.values = Array(repeating: .null, count: keyTable.names.count)
    }

    /// The value of `key` as Core Data's dictionary gives it (`String`, `Int16`,
    /// `Int32`, `Int64`, `Double`, `Bool`, `Date`, `Data` or `ManagedObjectID`); nil when
    /// the value is nil or `key` was not fetched.
    public subscript(key: String) -> Any? {
        keyTable.position(of: key).flatMap { value(at: $0) }
    }

    /// The value at `position` (see `FetchedDictionaryKeys.position(of:)`) as `Any`.
    public func value(at position: Int) -> Any? {
        let stored = values[position]
        if stored.isNull { return nil }
        switch keyTable.kinds[position] {
        case .attribute(let type): return type.swiftValue(stored)
        case .toOne(let destination): return objectID(stored, destination)
        }
    }

    /// The value of attribute `key` as `type`, without boxing it in `Any`; nil when it
    /// is nil or `key` was not fetched.
    public func value<T: AttributeValue>(forKey key: String, as type: T.Type = T.self) -> T? {
        keyTable.position(of: key).flatMap { value(at: $0, as: type) }
    }

    /// The value of the attribute at `position` as `type`: the fast path for reading many
    /// rows (look the position up once, `keyTable.position(of:)`).
    @inlinable
    public func value<T: AttributeValue>(at position: Int, as type: T.Type = T.self) -> T? {
        let stored = values[position]
        if case .null = stored { return nil }
        return T._fromStorage(_AttributeStorage(stored))
    }

    /// The related object's ID for the to-one relationship `key`.
    public func objectID(forKey key: String) -> ManagedObjectID? {
        guard let i = keyTable.position(of: key), case .toOne(let destination) = keyTable.kinds[i] else { return nil }
        return objectID(values[i], destination)
    }

    private func objectID(_ stored: StoredValue, _ destination: EntityDescription) -> ManagedObjectID? {
        guard case .integer(let pk) = stored, pk > 0 else { return nil }
        return ManagedObjectID(entity: destination, store: keyTable.store, primaryKey: pk)
    }

    /// The keys whose values are not nil, in `propertiesToFetch` order (`allKeys`).
    public var keys: [String] { keyTable.names.indices.filter { !values[$0].isNull }.map { keyTable.names[$0] } }
    /// How many keys have a value (nil values have no key).
    public var count: Int { values.reduce(0) { $0 + ($1.isNull ? 0 : 1) } }
    /// True when every fetched property is nil.
    public var isEmpty: Bool { count == 0 }

    /// The row as a Swift dictionary.
    public var dictionary: [String: Any] {
        var d: [String: Any] = [:]
        for (key, value) in self { d[key] = value }
        return d
    }

    public func makeIterator() -> Iterator { Iterator(row: self) }

    /// The row's key-value pairs, nil values left out.
    public struct Iterator: IteratorProtocol {
        let row: FetchedDictionary
        var position = 0

        public mutating func next() -> (key: String, value: Any)? {
            while position < row.values.count {
                defer { position += 1 }
                if let value = row.value(at: position) { return (row.keyTable.names[position], value) }
            }
            return nil
        }
    }
}

extension FetchedDictionary: CustomStringConvertible {
    public var description: String {
        "{" + map { "\($0.key) = \($0.value)" }.joined(separator: "; ") + "}"
    }
}
