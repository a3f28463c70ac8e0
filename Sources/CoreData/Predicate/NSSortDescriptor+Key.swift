import CtxdebugHelpers
import Foundation
import Synchronization

/// The name of a method a sort descriptor compares with (Objective-C's `SEL`, which
/// Linux Swift does not have): `Selector("localizedStandardCompare:")`. `ctxdebug port`
/// turns `#selector(NSString.localizedStandardCompare(_:))` into this.
public struct Selector: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let name: String
    public init(_ name: String) { self.name = name }
    public init(stringLiteral value: String) { self.name = value }
    public var description: String { name }
}

extension NSSortDescriptor {
    /// Core Data's `NSSortDescriptor(key:ascending:)`: sorts by the attribute `key`.
    public convenience init(key: String?, ascending: Bool) {
        self.init(key: key, ascending: ascending, selector: nil)
    }

    /// `NSSortDescriptor(key:ascending:selector:)`, comparing strings with
    /// `compare:` (the default), `caseInsensitiveCompare:` or `localizedStandardCompare:`.
    public convenience init(key: String?, ascending: Bool, selector: Selector?) {
        // Foundation's descriptor on Linux is made from a key path; the key and
        // selector are kept beside it. Its own key path (`String.count`) is a stand-in.
        self.init(keyPath: \String.count, ascending: ascending)
        SortDescriptorKeys.shared.register(self, key: key, selector: selector?.name)
    }

    /// `NSSortDescriptor(keyPath:ascending:)` for a property of any type (Foundation's
    /// takes only `Comparable` values; a managed object's optional attributes are not).
    public convenience init<Root, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool) {
        self.init(keyPath: \String.count, ascending: ascending)
        SortDescriptorKeys.shared.register(self, keyPath: keyPath)
    }

    /// The key the descriptor sorts by (`NSSortDescriptor(key:…)`), or nil for one
    /// made from a key path (the fetch finds the attribute that key path reads).
    public var key: String? { SortDescriptorKeys.shared.entry(of: self)?.key }

    /// The name of the comparison method (`selector` on Apple platforms), or nil.
    public var selectorName: String? { SortDescriptorKeys.shared.entry(of: self)?.selector }

    /// The key path the descriptor was made with, as `AnyKeyPath`.
    var sortKeyPath: AnyKeyPath {
        SortDescriptorKeys.shared.entry(of: self)?.keyPath?.keyPath ?? keyPath
    }
}

/// The keys of sort descriptors made with `init(key:…)`, beside the objects (see
/// `FormatPredicates` for the same table for predicates).
final class SortDescriptorKeys: Sendable {
    static let shared = SortDescriptorKeys()

    /// `@unchecked Sendable`: a key path is an immutable value.
    struct BoxedKeyPath: @unchecked Sendable { let keyPath: AnyKeyPath }

    struct Entry: @unchecked Sendable {
        weak var descriptor: NSSortDescriptor?
        var key: String?
        var selector: String?
        var keyPath: BoxedKeyPath?
    }

    private let entries = LockedValue<(table: [ObjectIdentifier: Entry], inserts: Int)>(([:], 0))

    func register(_ d: NSSortDescriptor, key: String?, selector: String?) {
        store(Entry(descriptor: d, key: key, selector: selector, keyPath: nil), for: d)
    }

    func register(_ d: NSSortDescriptor, keyPath: AnyKeyPath) {
        store(Entry(descriptor: d, key: nil, selector: nil, keyPath: BoxedKeyPath(keyPath: keyPath)), for: d)
    }

    private func store(_ entry: Entry, for d: NSSortDescriptor) {
        entries.withLock { e in
            e.table[ObjectIdentifier(d)] = entry
            e.inserts += 1
            if e.inserts >= max(1_024, e.table.count) {
                e.table = e.table.filter { $0.value.descriptor != nil }
                e.inserts = 0
            }
        }
    }

    func entry(of d: NSSortDescriptor) -> Entry? {
        entries.withLock { e in
            guard let entry = e.table[ObjectIdentifier(d)], entry.descriptor === d else { return nil }
            return entry
        }
    }
}
