@_spi(CoreData) public import ManagedContext

/// Core Data's `NSFetchedResultsChangeType`.
public enum NSFetchedResultsChangeType: UInt, Sendable {
    case insert = 1
    case delete = 2
    case move = 3
    case update = 4
}

/// Core Data's `NSFetchedResultsSectionInfo`.
public protocol NSFetchedResultsSectionInfo {
    var name: String { get }
    var indexTitle: String? { get }
    var numberOfObjects: Int { get }
    var objects: [Any]? { get }
}

/// Core Data's `NSFetchedResultsControllerDelegate`, without UIKit: every method is
/// optional, as in Core Data. The controller handed to it is the erased
/// `NSFetchedResultsController<any NSFetchRequestResult>` view of the one the app made
/// (Swift generics are not covariant as Objective-C's are), so compare controllers with
/// `isSameController(as:)`, not `===`.
public protocol NSFetchedResultsControllerDelegate: AnyObject {
    func controllerWillChangeContent(_ controller: NSFetchedResultsController<any NSFetchRequestResult>)
    func controller(
        _ controller: NSFetchedResultsController<any NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
        for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?)
    func controller(
        _ controller: NSFetchedResultsController<any NSFetchRequestResult>, didChange sectionInfo: any NSFetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType)
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<any NSFetchRequestResult>)
    func controller(_ controller: NSFetchedResultsController<any NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String) -> String?
    /// The controller's whole content after each change, and after `performFetch()`.
    /// When a delegate implements it, no other method is called.
    func controller(_ controller: NSFetchedResultsController<any NSFetchRequestResult>, didChangeContentWith snapshot: NSDiffableDataSourceSnapshotReference)
    /// The change of the objects' IDs, for a controller without sections whose delegate
    /// has no snapshot method. When a delegate implements it, no other method is called.
    func controller(_ controller: NSFetchedResultsController<any NSFetchRequestResult>, didChangeContentWith diff: CollectionDifference<NSManagedObjectID>)
}

extension NSFetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: NSFetchedResultsController<any NSFetchRequestResult>) {}
    public func controller(
        _ controller: NSFetchedResultsController<any NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
        for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
    ) {}
    public func controller(
        _ controller: NSFetchedResultsController<any NSFetchRequestResult>, didChange sectionInfo: any NSFetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType
    ) {}
    public func controllerDidChangeContent(_ controller: NSFetchedResultsController<any NSFetchRequestResult>) {}
    public func controller(_ controller: NSFetchedResultsController<any NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String) -> String? {
        sectionName.first.map { String($0).uppercased() }
    }
    // Optional in Core Data: these two tell the controller that the delegate has none.
    public func controller(_ controller: NSFetchedResultsController<any NSFetchRequestResult>, didChangeContentWith snapshot: NSDiffableDataSourceSnapshotReference) {
        controller.state.unanswered = true
    }
    public func controller(_ controller: NSFetchedResultsController<any NSFetchRequestResult>, didChangeContentWith diff: CollectionDifference<NSManagedObjectID>) {
        controller.state.unanswered = true
    }
}

/// Core Data's `NSFetchedResultsController`: a fetch's results in sections, kept up to
/// date as its context changes, with the changes told to a delegate. It refetches on
/// each change of its context (objects-did-change, posted at the end of every perform
/// block and by merges) and tells the delegate the difference. With a `cacheName`, the
/// sections are kept on disk between fetches and launches, as Core Data's cache of section
/// information is (`SectionInfoCache`, NSFetchedResultsController+Cache.swift).
open class NSFetchedResultsController<ResultType>: NSObject, @unchecked Sendable {
    public let fetchRequest: NSFetchRequest<ResultType>
    public let managedObjectContext: NSManagedObjectContext
    public let sectionNameKeyPath: String?
    public let cacheName: String?
    open weak var delegate: (any NSFetchedResultsControllerDelegate)?
    let state: FetchedResultsState

    public init(fetchRequest: NSFetchRequest<ResultType>, managedObjectContext context: NSManagedObjectContext, sectionNameKeyPath: String?, cacheName name: String?) {
        precondition(
            !(fetchRequest.sortDescriptors ?? []).isEmpty,
            "An instance of NSFetchedResultsController requires a fetch request with sort descriptors")
        self.fetchRequest = fetchRequest
        self.managedObjectContext = context
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = name
        self.state = FetchedResultsState()
    }

    /// The erased view the delegate receives, sharing this controller's state.
    private init(erasing other: NSFetchedResultsController<some Any>) where ResultType == any NSFetchRequestResult {
        self.fetchRequest = NSFetchRequest(entityName: other.fetchRequest.entityName ?? "")
        self.managedObjectContext = other.managedObjectContext
        self.sectionNameKeyPath = other.sectionNameKeyPath
        self.cacheName = other.cacheName
        self.state = other.state
    }

    /// Whether `other` is this controller or a view of it.
    public func isSameController(as other: NSFetchedResultsController<some Any>) -> Bool { state === other.state }

    /// Core Data's `deleteCache(withName:)`: removes the cached section information `name`,
    /// or every cache for nil. Call it before changing the request of a controller with a cache.
    open class func deleteCache(withName name: String?) { SectionInfoCache.delete(name) }

    /// Runs the fetch and starts following the context's changes.
    open func performFetch() throws {
        let (objects, sections) = try fetchObjectsAndSections()
        let old = state.sections ?? []
        state.objects = objects
        state.sections = sections
        if let delegate { _ = tellWhole(delegate, old: old, new: state.sections ?? [], updated: []) }
        if state.observer == nil {
            state.observer = NotificationCenter.default.addObserver(
                forName: ManagedObjectContext.didChangeObjectsNotification, object: managedObjectContext, queue: nil
            ) { [weak self] note in
                let changed = Self.changedObjects(note)
                // Posted on the context's queue, inside its operation.
                nonisolated(unsafe) let controller = self
                controller?.contextDidChange(changed)
            }
        }
    }

    open var fetchedObjects: [ResultType]? { state.objects.map { $0.map { $0 as! ResultType } } }

    open var sections: [any NSFetchedResultsSectionInfo]? { state.sections }

    open func object(at indexPath: IndexPath) -> ResultType {
        guard let sections = state.sections, indexPath.section < sections.count, indexPath.item < sections[indexPath.section].members.count else {
            preconditionFailure("no object at index \(indexPath.item) in section at index \(indexPath.section)")
        }
        return sections[indexPath.section].members[indexPath.item] as! ResultType
    }

    open func indexPath(forObject object: ResultType) -> IndexPath? {
        guard let target = object as? ManagedObject, let sections = state.sections else { return nil }
        for (s, section) in sections.enumerated() {
            if let i = section.members.firstIndex(where: { ($0 as? ManagedObject) === target }) { return IndexPath(item: i, section: s) }
        }
        return nil
    }

    open var sectionIndexTitles: [String] {
        (state.sections ?? []).compactMap { $0.indexTitle }
    }

    open func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        (state.sections ?? []).firstIndex { $0.indexTitle == title } ?? sectionIndex
    }

    open func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        sectionName.first.map { String($0).uppercased() }
    }

    // MARK: Following the context

    func fetchRequestObjects() throws -> [Any] {
        try managedObjectContext.fetch(fetchRequest).map { $0 as Any }
    }

    func makeSections(_ objects: [Any]) -> [FetchedResultsSection] {
        state.cache.sectionComputations += 1
        guard let keyPath = sectionNameKeyPath else {
            return [FetchedResultsSection(name: "", indexTitle: nil, members: objects)]
        }
        var sections: [FetchedResultsSection] = []
        for object in objects {
            let name = Self.sectionName(of: object, keyPath: keyPath)
            if let last = sections.last, last.name == name {
                sections[sections.count - 1].members.append(object)
            } else {
                sections.append(FetchedResultsSection(name: name, indexTitle: indexTitle(forSectionNamed: name), members: [object]))
            }
        }
        return sections
    }

    /// The delegate's index title for a section, else the controller's.
    func indexTitle(forSectionNamed name: String) -> String? {
        delegate?.controller(erased, sectionIndexTitleForSectionName: name) ?? sectionIndexTitle(forSectionName: name)
    }

    static func sectionName(of object: Any, keyPath: String) -> String {
        var value: Any? = object
        for key in keyPath.split(separator: ".") {
            value = (value as? NSManagedObject)?.value(forKey: String(key))
        }
        guard let value else { return "" }
        return "\(value)"
    }

    /// Hands the delegate the whole content, as a snapshot or, without sections, as the
    /// difference of the IDs, when it has the method (Core Data calls no other then).
    /// False when it has neither.
    private func tellWhole(_ delegate: any NSFetchedResultsControllerDelegate, old: [FetchedResultsSection], new: [FetchedResultsSection], updated: Set<ObjectIdentifier>) -> Bool {
        let controller = erased
        state.unanswered = false
        delegate.controller(controller, didChangeContentWith: FetchedResultsDiff.snapshot(old: old, new: new, updated: updated))
        if !state.unanswered { return true }
        guard sectionNameKeyPath == nil else { return false }
        state.unanswered = false
        let ids = { (sections: [FetchedResultsSection]) in sections.flatMap(\.members).compactMap(FetchedResultsDiff.objectID) }
        delegate.controller(controller, didChangeContentWith: ids(new).difference(from: ids(old)))
        return !state.unanswered
    }

    private var erased: NSFetchedResultsController<any NSFetchRequestResult> {
        if let same = self as? NSFetchedResultsController<any NSFetchRequestResult> { return same }
        return NSFetchedResultsController<any NSFetchRequestResult>(erasing: self)
    }

    private static func changedObjects(_ note: Notification) -> Set<ObjectIdentifier> {
        var changed = Set<ObjectIdentifier>()
        for key in [NSUpdatedObjectsKey, NSRefreshedObjectsKey] {
            if let objects = note.userInfo?[key] as? Set<ManagedObject> { changed.formUnion(objects.map(ObjectIdentifier.init)) }
        }
        return changed
    }

    private func contextDidChange(_ updated: Set<ObjectIdentifier>) {
        guard let oldSections = state.sections else { return }
        let new: [Any]
        do {
            new = try fetchRequestObjects()
        } catch {
            // Core Data logs a failed refetch and keeps the last results.
            FileHandle.standardError.write(Data("CoreData: error: NSFetchedResultsController could not refetch: \(error)\n".utf8))
            return
        }
        let newSections = makeSections(new)
        state.objects = new
        state.sections = newSections
        guard let delegate else { return }
        let changes = FetchedResultsDiff(old: oldSections, new: newSections, updated: updated)
        guard !changes.isEmpty else { return }
        if tellWhole(delegate, old: oldSections, new: newSections, updated: updated) { return }
        let controller = erased
        delegate.controllerWillChangeContent(controller)
        for change in changes.sections {
            delegate.controller(controller, didChange: change.section, atSectionIndex: change.index, for: change.type)
        }
        for change in changes.objects {
            delegate.controller(controller, didChange: change.object, at: change.from, for: change.type, newIndexPath: change.to)
        }
        delegate.controllerDidChangeContent(controller)
    }

}

/// One section of a controller's results.
struct FetchedResultsSection: NSFetchedResultsSectionInfo {
    let name: String
    let indexTitle: String?
    var members: [Any]
    var numberOfObjects: Int { members.count }
    var objects: [Any]? { members }
}

/// What a controller knows between changes; shared with its erased views.
final class FetchedResultsState: @unchecked Sendable {
    var objects: [Any]?
    var sections: [FetchedResultsSection]?
    var observer: (any NSObjectProtocol)?
    /// The cache's folder and the last fetch's configuration, for a controller with a cache name.
    var cache = SectionInfoCache.ControllerRecord()
    /// Set by the delegate methods Core Data makes optional, when the delegate lacks one.
    var unanswered = false

    /// The observer goes with the last view of the controller (the one the app made, or
    /// an erased view a delegate kept).
    deinit {
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }
}

/// The changes between two fetches, in Core Data's order: section deletes and
/// inserts, then object deletes, inserts, moves and updates.
struct FetchedResultsDiff {
    struct SectionChange {
        let section: any NSFetchedResultsSectionInfo
        let index: Int
        let type: NSFetchedResultsChangeType
    }
    struct ObjectChange {
        let object: Any
        let from: IndexPath?
        let to: IndexPath?
        let type: NSFetchedResultsChangeType
    }
    var sections: [SectionChange] = []
    var objects: [ObjectChange] = []
    var isEmpty: Bool { sections.isEmpty && objects.isEmpty }

    static func objectID(_ member: Any) -> NSManagedObjectID? {
        (member as? NSManagedObject)?.objectID ?? member as? NSManagedObjectID
    }

    /// The content as Core Data's snapshot: sections by name, items by objectID; the
    /// updated objects that stayed are marked for reload (as iOS 15 and later do).
    static func snapshot(old: [FetchedResultsSection], new: [FetchedResultsSection], updated: Set<ObjectIdentifier>) -> NSDiffableDataSourceSnapshotReference {
        var snapshot = NSDiffableDataSourceSnapshot<AnyHashable, AnyHashable>()
        let before = Set(old.flatMap(\.members).map { ObjectIdentifier($0 as AnyObject) })
        var reloaded: [AnyHashable] = []
        for section in new {
            snapshot.appendSections([AnyHashable(section.name)])
            for member in section.members {
                guard let id = objectID(member) else { continue }
                snapshot.appendItems([AnyHashable(id)], toSection: AnyHashable(section.name))
                let key = ObjectIdentifier(member as AnyObject)
                if updated.contains(key) && before.contains(key) { reloaded.append(AnyHashable(id)) }
            }
        }
        snapshot.reloadItems(reloaded)
        return NSDiffableDataSourceSnapshotReference(snapshot)
    }

    init<S: NSFetchedResultsSectionInfo>(old: [S], new: [S], updated: Set<ObjectIdentifier>) {
        let oldNames = old.map(\.name), newNames = new.map(\.name)
        for (i, s) in old.enumerated() where !newNames.contains(s.name) { sections.append(.init(section: s, index: i, type: .delete)) }
        for (i, s) in new.enumerated() where !oldNames.contains(s.name) { sections.append(.init(section: s, index: i, type: .insert)) }
        func positions(_ list: [S]) -> [ObjectIdentifier: (IndexPath, Any)] {
            var map: [ObjectIdentifier: (IndexPath, Any)] = [:]
            for (s, section) in list.enumerated() {
                for (i, object) in (section.objects ?? []).enumerated() {
                    map[ObjectIdentifier(object as AnyObject)] = (IndexPath(item: i, section: s), object)
                }
            }
            return map
        }
        let before = positions(old), after = positions(new)
        for (key, (path, object)) in before.sorted(by: { $0.value.0 < $1.value.0 }) where after[key] == nil {
            objects.append(.init(object: object, from: path, to: nil, type: .delete))
        }
        for (key, (path, object)) in after.sorted(by: { $0.value.0 < $1.value.0 }) {
            guard let (oldPath, _) = before[key] else {
                objects.append(.init(object: object, from: nil, to: path, type: .insert))
                continue
            }
            let oldSectionName = old[oldPath.section].name, newSectionName = new[path.section].name
            if oldPath != path || oldSectionName != newSectionName {
                objects.append(.init(object: object, from: oldPath, to: path, type: .move))
            } else if updated.contains(key) {
                objects.append(.init(object: object, from: oldPath, to: path, type: .update))
            }
        }
    }
}
