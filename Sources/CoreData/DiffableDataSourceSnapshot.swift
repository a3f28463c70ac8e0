public import Foundation

// UIKit's and AppKit's diffable data source snapshots, which Core Data's fetched results
// controller hands its delegate (`controller(_:didChangeContentWith:)`). Linux has
// neither framework, so the two types are here, with the members a model layer reads
// and builds; `snapshot as NSDiffableDataSourceSnapshot<String, NSManagedObjectID>`
// bridges as it does on Apple platforms.

/// UIKit's `NSDiffableDataSourceSnapshot`: sections and their items, by identifier, in
/// order; and the items and sections marked for reload or reconfiguration.
public struct NSDiffableDataSourceSnapshot<SectionIdentifierType: Hashable, ItemIdentifierType: Hashable> {
    private var sections: [(id: SectionIdentifierType, items: [ItemIdentifierType])] = []
    public private(set) var reloadedItemIdentifiers: [ItemIdentifierType] = []
    public private(set) var reconfiguredItemIdentifiers: [ItemIdentifierType] = []
    public private(set) var reloadedSectionIdentifiers: [SectionIdentifierType] = []

    public init() {}

    public var numberOfItems: Int { sections.reduce(0) { $0 + $1.items.count } }
    public var numberOfSections: Int { sections.count }
    public var sectionIdentifiers: [SectionIdentifierType] { sections.map(\.id) }
    public var itemIdentifiers: [ItemIdentifierType] { sections.flatMap(\.items) }

    public func numberOfItems(inSection identifier: SectionIdentifierType) -> Int { itemIdentifiers(inSection: identifier).count }

    public func itemIdentifiers(inSection identifier: SectionIdentifierType) -> [ItemIdentifierType] {
        guard let s = sectionPosition(identifier) else { preconditionFailure("Invalid parameter not satisfying: section \(identifier) is not in the snapshot") }
        return sections[s].items
    }

    public func sectionIdentifier(containingItem identifier: ItemIdentifierType) -> SectionIdentifierType? {
        sections.first { $0.items.contains(identifier) }?.id
    }

    public func indexOfItem(_ identifier: ItemIdentifierType) -> Int? { itemIdentifiers.firstIndex(of: identifier) }
    public func indexOfSection(_ identifier: SectionIdentifierType) -> Int? { sectionPosition(identifier) }

    public mutating func appendSections(_ identifiers: [SectionIdentifierType]) {
        for id in identifiers {
            precondition(sectionPosition(id) == nil, "Section identifier \(id) is already in the snapshot: section identifiers must be unique")
            sections.append((id, []))
        }
    }

    /// Appends to `section`, or to the last section when it is nil (there must be one).
    public mutating func appendItems(_ identifiers: [ItemIdentifierType], toSection section: SectionIdentifierType? = nil) {
        let s: Int
        if let section {
            guard let found = sectionPosition(section) else { preconditionFailure("Invalid parameter not satisfying: section \(section) is not in the snapshot") }
            s = found
        } else {
            precondition(!sections.isEmpty, "There are currently no sections in the data source. Please add a section first.")
            s = sections.count - 1
        }
        sections[s].items.append(contentsOf: identifiers)
    }

    public mutating func deleteItems(_ identifiers: [ItemIdentifierType]) {
        let gone = Set(identifiers)
        for s in sections.indices { sections[s].items.removeAll { gone.contains($0) } }
    }

    public mutating func deleteSections(_ identifiers: [SectionIdentifierType]) {
        let gone = Set(identifiers)
        sections.removeAll { gone.contains($0.id) }
    }

    public mutating func deleteAllItems() {
        sections = []
        reloadedItemIdentifiers = []
        reconfiguredItemIdentifiers = []
        reloadedSectionIdentifiers = []
    }

    public mutating func reloadItems(_ identifiers: [ItemIdentifierType]) { reloadedItemIdentifiers.append(contentsOf: identifiers) }
    public mutating func reconfigureItems(_ identifiers: [ItemIdentifierType]) { reconfiguredItemIdentifiers.append(contentsOf: identifiers) }
    public mutating func reloadSections(_ identifiers: [SectionIdentifierType]) { reloadedSectionIdentifiers.append(contentsOf: identifiers) }

    private func sectionPosition(_ id: SectionIdentifierType) -> Int? { sections.firstIndex { $0.id == id } }
}

extension NSDiffableDataSourceSnapshot: @unchecked Sendable where SectionIdentifierType: Sendable, ItemIdentifierType: Sendable {}

/// UIKit's `NSDiffableDataSourceSnapshotReference`, the untyped snapshot a fetched
/// results controller hands its delegate: section identifiers are the sections' names
/// (`String`), item identifiers the objects' `NSManagedObjectID`s.
open class NSDiffableDataSourceSnapshotReference: NSObject, @unchecked Sendable {
    var snapshot: NSDiffableDataSourceSnapshot<AnyHashable, AnyHashable>

    public override init() { snapshot = NSDiffableDataSourceSnapshot() }
    init(_ snapshot: NSDiffableDataSourceSnapshot<AnyHashable, AnyHashable>) { self.snapshot = snapshot }

    open var numberOfItems: Int { snapshot.numberOfItems }
    open var numberOfSections: Int { snapshot.numberOfSections }
    open var sectionIdentifiers: [Any] { snapshot.sectionIdentifiers.map(\.base) }
    open var itemIdentifiers: [Any] { snapshot.itemIdentifiers.map(\.base) }
    open var reloadedItemIdentifiers: [Any] { snapshot.reloadedItemIdentifiers.map(\.base) }
    open var reconfiguredItemIdentifiers: [Any] { snapshot.reconfiguredItemIdentifiers.map(\.base) }

    open func numberOfItems(inSection sectionIdentifier: Any) -> Int { snapshot.numberOfItems(inSection: Self.key(sectionIdentifier)) }
    open func itemIdentifiersInSection(withIdentifier sectionIdentifier: Any) -> [Any] {
        snapshot.itemIdentifiers(inSection: Self.key(sectionIdentifier)).map(\.base)
    }
    open func sectionIdentifierForSection(containingItemIdentifier itemIdentifier: Any) -> Any? {
        snapshot.sectionIdentifier(containingItem: Self.key(itemIdentifier))?.base
    }
    open func index(ofItemIdentifier itemIdentifier: Any) -> Int { snapshot.indexOfItem(Self.key(itemIdentifier)) ?? NSNotFound }
    open func index(ofSectionIdentifier sectionIdentifier: Any) -> Int { snapshot.indexOfSection(Self.key(sectionIdentifier)) ?? NSNotFound }
    open func appendSections(withIdentifiers identifiers: [Any]) { snapshot.appendSections(identifiers.map(Self.key)) }
    open func appendItems(withIdentifiers identifiers: [Any]) { snapshot.appendItems(identifiers.map(Self.key)) }
    open func appendItems(withIdentifiers identifiers: [Any], intoSectionWithIdentifier sectionIdentifier: Any) {
        snapshot.appendItems(identifiers.map(Self.key), toSection: Self.key(sectionIdentifier))
    }
    open func deleteItems(withIdentifiers identifiers: [Any]) { snapshot.deleteItems(identifiers.map(Self.key)) }
    open func deleteSections(withIdentifiers identifiers: [Any]) { snapshot.deleteSections(identifiers.map(Self.key)) }
    open func deleteAllItems() { snapshot.deleteAllItems() }
    open func reloadItems(withIdentifiers identifiers: [Any]) { snapshot.reloadItems(identifiers.map(Self.key)) }
    open func reconfigureItems(withIdentifiers identifiers: [Any]) { snapshot.reconfigureItems(identifiers.map(Self.key)) }

    private static func key(_ value: Any) -> AnyHashable {
        guard let hashable = value as? AnyHashable else { preconditionFailure("A snapshot identifier must be Hashable (got \(type(of: value)))") }
        return hashable
    }
}

/// `reference as NSDiffableDataSourceSnapshot<String, NSManagedObjectID>`, and back.
extension NSDiffableDataSourceSnapshot: _ObjectiveCBridgeable {
    public typealias _ObjectiveCType = NSDiffableDataSourceSnapshotReference

    public func _bridgeToObjectiveC() -> NSDiffableDataSourceSnapshotReference {
        var untyped = NSDiffableDataSourceSnapshot<AnyHashable, AnyHashable>()
        for section in sectionIdentifiers {
            untyped.appendSections([AnyHashable(section)])
            untyped.appendItems(itemIdentifiers(inSection: section).map { AnyHashable($0) }, toSection: AnyHashable(section))
        }
        untyped.reloadItems(reloadedItemIdentifiers.map { AnyHashable($0) })
        untyped.reconfigureItems(reconfiguredItemIdentifiers.map { AnyHashable($0) })
        untyped.reloadSections(reloadedSectionIdentifiers.map { AnyHashable($0) })
        return NSDiffableDataSourceSnapshotReference(untyped)
    }

    public static func _forceBridgeFromObjectiveC(_ source: NSDiffableDataSourceSnapshotReference, result: inout Self?) {
        guard _conditionallyBridgeFromObjectiveC(source, result: &result) else {
            preconditionFailure("The snapshot's identifiers are not \(SectionIdentifierType.self) sections and \(ItemIdentifierType.self) items")
        }
    }

    public static func _conditionallyBridgeFromObjectiveC(_ source: NSDiffableDataSourceSnapshotReference, result: inout Self?) -> Bool {
        var typed = Self()
        let untyped = source.snapshot
        for section in untyped.sectionIdentifiers {
            guard let id = section.base as? SectionIdentifierType else { return false }
            let items = untyped.itemIdentifiers(inSection: section).compactMap { $0.base as? ItemIdentifierType }
            guard items.count == untyped.numberOfItems(inSection: section) else { return false }
            typed.appendSections([id])
            typed.appendItems(items, toSection: id)
        }
        typed.reloadItems(untyped.reloadedItemIdentifiers.compactMap { $0.base as? ItemIdentifierType })
        typed.reconfigureItems(untyped.reconfiguredItemIdentifiers.compactMap { $0.base as? ItemIdentifierType })
        typed.reloadSections(untyped.reloadedSectionIdentifiers.compactMap { $0.base as? SectionIdentifierType })
        result = typed
        return true
    }

    public static func _unconditionallyBridgeFromObjectiveC(_ source: NSDiffableDataSourceSnapshotReference?) -> Self {
        var result: Self?
        _forceBridgeFromObjectiveC(source ?? NSDiffableDataSourceSnapshotReference(), result: &result)
        return result!
    }
}
