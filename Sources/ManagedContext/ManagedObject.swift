@_spi(Runtime) public import ConcurrencyDebug
import CtxdebugHelpers
public import Foundation
import Synchronization

/// An object of an entity, confined to its context's queue. Subclass it and
/// declare attributes with `@Attribute` and relationships with `@Relationship`.
///
/// An `NSObject`, as Core Data's `NSManagedObject` is: equal only to itself, hashed by
/// identity (`isEqual` and `hash` are final, as Core Data forbids overriding them).
///
/// Not `Sendable`: pass `objectID` across queues and use `object(with:)` there.
open class ManagedObject: NSObject, AccessDescribing, ManagedObjectRuntimeMembers {
    /// The object's entity, as the runtime compiled it. `entity` (below, in
    /// `ManagedObjectRuntimeMembers`) for users of this module; CoreData's
    /// `NSManagedObject.entity` is the model's `NSEntityDescription`.
    @_spi(CoreData) public let runtimeEntity: EntityDescription
    /// The object's identity. Reading it is never checked, as in Core Data.
    public internal(set) var objectID: ManagedObjectID {
        didSet { instanceKey.store(objectID.key, ordering: .relaxed) }
    }
    /// `objectID.key`, for the access check: a wrong-queue access reads it before the
    /// context's guard, while the owner's save may re-key the object (temporary to
    /// permanent). A plain read of `objectID` there was a data race.
    private let instanceKey: Atomic<Int64>
    /// Serialize a registered object's re-key with a violation report's read of its
    /// whole ID, from another thread (`replaceObjectID(with:)`, `objectIDFromAnyQueue`).
    /// Striped by address: a lock per object would cost every object its memory.
    private static let identityLocks = (0..<64).map { _ in LockedValue(()) }
    /// Its context; nil once it is deleted and saved, or its context is gone (the
    /// object does not keep its context alive, as in Core Data).
    public internal(set) var managedObjectContext: ManagedObjectContext? {
        get { contextReference?.context }
        set { contextReference = newValue?.objectsReference }
    }
    /// Its context's shared weak reference: one retain per object, where a weak
    /// reference of its own costs a side-table operation per object made and freed.
    private var contextReference: ContextReference?

    var queueOwner: QueueIdentity = .none
    /// Orders inserts: saves give primary keys in the order objects were created.
    let creationSerial: Int64
    var contextNumber: UInt32 = 0
    /// Unchecked exclusivity: an object is confined to its context's queue (what the
    /// checker enforces), and the dynamic check cost more than the rest of a read.
    @exclusivity(unchecked) var values: [StoredValue]
    var toOne: [ManagedObjectID?]
    /// What the parent (or store) had when the object was loaded or last saved.
    var snapshot: RowSnapshot?
    var isFaultFlag = false
    /// A fault that holds the row a fetch read (`returnsObjectsAsFaults`): its
    /// coordinator's `savesSoFar` then; `.max` when it holds none. Only read while
    /// `isFaultFlag` is set.
    var heldRowSaveCount: UInt64 = .max
    /// CoreData's fetched properties' results, by name, until the object turns into a fault.
    @_spi(CoreData) public final var fetchedPropertyValues: [String: Any]?
    var isRecordingPrototype = false
    /// Its context has an undo manager: a change notes the object's state first.
    var recordsUndo = false
    var recordedProperty: PropertyReference?
    var changedAttributes = ChangeMask()
    var changedToOne = ChangeMask()
    /// To-many relationships (by relationship index) whose members changed: they have
    /// no column, but they make the object updated, as in Core Data.
    var changedToMany = ChangeMask()
    var insertedFlag = false
    var deletedFlag = false
    var updatedFlag = false
    /// True once the object's row was found gone when a fault fired.
    var isStale = false
    /// A fault whose row was gone when it fired, turned into a deleted object
    /// (`shouldDeleteInaccessibleFaults`): exempt from validation.
    var isInaccessibleFault = false
    /// True once its context was reset: it can never load values again.
    var isInvalidated = false
    /// True once a save removed it from its context as deleted (its context is nil).
    var isRemovedByDelete = false
    /// The process's save count (`Diagnostics.saveCount`) when missing-merge last
    /// looked at this object; a read looks again only after another save.
    var checkedSaveCount: UInt64 = 0

    /// Core Data's designated initializer. With a context, the object is inserted
    /// into it; without one, it stays unregistered until `context.insert(_:)`.
    public required init(entity: EntityDescription, insertInto context: ManagedObjectContext?) {
        self.runtimeEntity = entity
        let temporaryID = ManagedObjectID.makeTemporary(entity: entity)
        self.objectID = temporaryID
        self.instanceKey = Atomic(temporaryID.key)
        self.creationSerial = -temporaryID.key
        self.values = entity.defaultValues
        self.toOne = Array(repeating: nil, count: entity.toOneRelationships.count)
        super.init()
        if let context { context.insert(self) }
    }

    /// Inserts a new object of this class into `context`.
    public convenience init(context: ManagedObjectContext) {
        let entity = context.model.entity(for: Self.self)
        self.init(entity: entity, insertInto: context)
    }

    // MARK: Life cycle (Core Data's overridable hooks; the runtime calls them on the
    // context's queue, inside the operation that causes them)

    /// Called once, when the object is first inserted into a context: set initial values
    /// here (with `setPrimitiveValue`, as Core Data advises).
    open func awakeFromInsert() {}
    /// Called when the object's values are first loaded from its parent or store.
    open func awakeFromFetch() {}
    /// Called when `delete(_:)` marks the object deleted, before the delete rules run.
    open func prepareForDeletion() {}
    /// Called for each inserted, updated or deleted object at the start of a save.
    open func willSave() {}
    /// Called for each saved object after the save succeeded.
    open func didSave() {}
    /// Called before the object becomes a fault (refresh, reset, a saved delete).
    open func willTurnIntoFault() {}
    /// Called after the object became a fault.
    open func didTurnIntoFault() {}
    /// Checks the object before an insert is saved; throw to stop the save. The default
    /// checks that every non-optional attribute has a value (Core Data's 1570 error).
    open func validateForInsert() throws { try validateMandatoryAttributes() }
    /// Checks the object before an update is saved; the default is as for an insert.
    open func validateForUpdate() throws { try validateMandatoryAttributes() }
    /// Checks the object before a delete is saved.
    open func validateForDelete() throws {}

    /// Core Data's missing-mandatory-property validation.
    private func validateMandatoryAttributes() throws {
        for a in entity.attributes where !a.isOptional && values[a.index].isNull {
            throw ManagedContextError(
                .validationFailed,
                "\(entity.name).\(a.name) is a required value (the model does not mark it optional), and \(objectID) has none. Set it before saving, or make the attribute optional in the model.",
                validation: .init(kind: .missingMandatoryProperty, key: a.name, objectID: objectID))
        }
    }

    var hasAwoken = false

    // MARK: State

    public var isFault: Bool { isFaultFlag }
    public var isInserted: Bool { access(accessEvent(.hasChanges, attribute: .max)) { insertedFlag } }
    public var isUpdated: Bool { access(accessEvent(.hasChanges, attribute: .max)) { updatedFlag } }
    public var isDeleted: Bool { access(accessEvent(.hasChanges, attribute: .max)) { deletedFlag } }
    public var hasChanges: Bool { access(accessEvent(.hasChanges, attribute: .max)) { insertedFlag || updatedFlag || deletedFlag } }

    /// The changed attributes and their new values, by name, as Core Data's
    /// `changedValues()`: Swift values (see `value(forKey:)`), `NSNull` for nil.
    public func changedValues() -> [String: Any] {
        access(accessEvent(.hasChanges, attribute: .max)) { changedValuesChecked() }
    }

    private func changedValuesChecked() -> [String: Any] {
        var result: [String: Any] = [:]
        for a in entity.attributes where changedAttributes.contains(a.index) && !a.isOrderKey {
            result[a.name] = a.attributeType.swiftValue(values[a.index]) ?? NSNull()
        }
        // A changed to-many shows its whole new set, as in Core Data.
        for r in entity.relationships where r.isToMany && changedToMany.contains(r.index) {
            result[r.name] = Set(relatedObjects(forRelationshipNamed: r.name))
        }
        return result
    }

    /// The values last fetched or saved, by attribute name, as Core Data's
    /// `committedValues(forKeys: nil)`: Swift values, `NSNull` for nil.
    public func committedValues() -> [String: Any] {
        access(accessEvent(.get, attribute: .max)) {
            fireFaultIfNeeded()
            let source = snapshot?.values ?? entity.defaultValues
            return Dictionary(
                uniqueKeysWithValues: entity.attributes.filter { !$0.isOrderKey }.map { ($0.name, $0.attributeType.swiftValue(source[$0.index]) ?? NSNull()) })
        }
    }

    // MARK: Attribute access (the hot path)

    /// An attribute's stored value by name: what `@Attribute`'s getter reads, and what
    /// this package's tools (the CSV export) read without converting.
    @usableFromInline package final func storedValue(forAttributeNamed name: String) -> StoredValue {
        storedValue(atAttributeIndex: entity.attributeIndex(name))
    }

    /// The checked read by index, for the getter above and for code that resolved the
    /// index once (`EntityDescription.attribute(named:)?.index`), such as an export that
    /// reads the same fields of a million objects.
    @inline(__always)
    package final func storedValue(atAttributeIndex index: Int) -> StoredValue {
        // Written out rather than through `access`: the hottest path keeps no closure.
        let verdict = ConcurrencyDebug.checkGuarded(self, owner: queueOwner, accessEvent(isFaultFlag ? .fireFault : .get, attribute: index))
        if case .unguarded = verdict { return readStoredValue(atAttributeIndex: index) }
        return guardedRead(verdict, atAttributeIndex: index)
    }

    @inline(never)
    private final func guardedRead(_ verdict: ConcurrencyDebug.GuardVerdict, atAttributeIndex index: Int) -> StoredValue {
        guardedAccess(verdict) { readStoredValue(atAttributeIndex: index) }
    }

    @inline(__always)
    private final func readStoredValue(atAttributeIndex index: Int) -> StoredValue {
        if _slowPath(isFaultFlag || isRecordingPrototype) {
            if isRecordingPrototype {
                recordedProperty = .attribute(index)
                return values.indices.contains(index) ? values[index] : .null
            }
            fireFaultIfNeeded()
        }
        // missing-merge's fast path: one load and a compare until a save happens.
        if _slowPath(Diagnostics.saveCount != checkedSaveCount) { readAfterSave(index) }
        return values[index]
    }

    /// A read after some context saved: does this object show values older than that save?
    @inline(never)
    final func readAfterSave(_ attribute: Int) {
        guard let context = managedObjectContext else {
            checkedSaveCount = Diagnostics.saveCount
            return
        }
        context.diagnoseRemoteChangeUnmerged(self, operation: "read", attribute: entity.attributes[attribute].name)
        context.diagnoseMissingMerge(self, storeVersion: nil, operation: "read", attribute: entity.attributes[attribute].name)
    }

    @usableFromInline package final func setStoredValue(_ value: StoredValue, forAttributeNamed name: String) {
        setStoredValue(value, atAttributeIndex: entity.attributeIndex(name))
    }

    package final func setStoredValue(_ value: StoredValue, atAttributeIndex index: Int) {
        access(accessEvent(isFaultFlag ? .fireFault : .set, attribute: index)) {
            if _slowPath(isFaultFlag || isRecordingPrototype) {
                if isRecordingPrototype { recordedProperty = .attribute(index); return }
                fireFaultIfNeeded()
            }
            if _slowPath(recordsUndo) { managedObjectContext?.noteForUndo(self) }
            values[index] = value
            changedAttributes.insert(index)
            if !updatedFlag && !insertedFlag { managedObjectContext?.objectDidChange(self) }
        }
    }

    /// Key-value access by attribute name, as Core Data's `value(forKey:)`: the
    /// attribute's value as a Swift value of its type (`String`, `Int16`, `Int32`,
    /// `Int64`, `Double`, `Bool`, `Date`, `Data`), or nil.
    open func value(forKey key: String) -> Any? {
        guard let index = entity.attributeIndex(ifPresent: key) else {
            preconditionFailure("\(entity.name) has no attribute '\(key)' (value(forKey:) is not key-value coding compliant for it)")
        }
        return value(atAttributeIndex: index)
    }

    /// Key-value access's read of attribute `key` in one call: its stored value (checked
    /// as any read), its type in `type`. Nil when `key` names no attribute, or one whose values
    /// convert on access (`EntityDescription.convertsOnAccess`): CoreData reads those.
    package final func keyValueStoredValue(forKey key: String, type: inout AttributeType) -> StoredValue? {
        guard let attribute = runtimeEntity.keyValueAttribute(key), !attribute.converts else { return nil }
        type = attribute.type
        return storedValue(atAttributeIndex: attribute.index)
    }

    /// `value(forKey:)` of a key already resolved to attribute `index`
    /// (`EntityDescription.attributeIndex(ifPresent:)`).
    @_spi(CoreData) public final func value(atAttributeIndex index: Int) -> Any? {
        entity.attributeTypes[index].swiftValue(storedValue(atAttributeIndex: index))
    }

    /// Sets an attribute by name, as Core Data's `setValue(_:forKey:)`: nil (or
    /// `NSNull`) or a value of the attribute's type; any number for a numeric one.
    open func setValue(_ value: Any?, forKey key: String) {
        guard let index = entity.attributeIndex(ifPresent: key) else {
            preconditionFailure("\(entity.name) has no attribute '\(key)' (setValue(_:forKey:) is not key-value coding compliant for it)")
        }
        setValue(value, atAttributeIndex: index)
    }

    /// `setValue(_:forKey:)` of a key already resolved to attribute `index`.
    @_spi(CoreData) public final func setValue(_ value: Any?, atAttributeIndex index: Int) {
        let attributeType = entity.attributeTypes[index]
        guard let stored = attributeType.storedValue(fromSwift: value) else {
            preconditionFailure("Unacceptable type of value for attribute: property = \"\(entity.attributes[index].name)\"; desired type = \(attributeType); given type = \(type(of: value!)); value = \(value!).")
        }
        setStoredValue(stored, atAttributeIndex: index)
    }

    // MARK: Relationships

    public final func relatedObjects(forRelationshipNamed name: String) -> [ManagedObject] {
        let r = entity.relationships[entity.relationshipIndex(name)]
        return access(accessEvent(.get, attribute: entity.attributes.count + r.index)) { relatedObjectsChecked(r) }
    }

    private final func relatedObjectsChecked(_ r: RelationshipDescription) -> [ManagedObject] {
        if isRecordingPrototype {
            recordedProperty = r.isToMany ? nil : .toOne(r.index)
            return []
        }
        fireFaultIfNeeded()
        guard let context = managedObjectContext else {
            return r.isToMany ? [] : []
        }
        if r.isToMany {
            return context.objectsRelated(to: self, through: r)
        }
        guard let id = toOne[r.toOneIndex] else { return [] }
        context.check(.objectWithID)
        return [context.resolvedObject(with: id)]
    }

    public final func setRelatedObjects(_ objects: [ManagedObject], forRelationshipNamed name: String) {
        let r = entity.relationships[entity.relationshipIndex(name)]
        access(accessEvent(.set, attribute: entity.attributes.count + r.index)) { setRelatedObjectsChecked(objects, r, name: name) }
    }

    private final func setRelatedObjectsChecked(_ objects: [ManagedObject], _ r: RelationshipDescription, name: String) {
        if isRecordingPrototype { recordedProperty = r.isToMany ? nil : .toOne(r.index); return }
        fireFaultIfNeeded()
        let accepted = objects.filter { checkSameContext($0, relationship: r) }
        if accepted.count != objects.count && !r.isToMany { return }
        let objects = accepted
        if r.join != nil {
            // Many-to-many: links in the join table, both sides changed.
            guard let context = managedObjectContext else { return }
            let current = relatedObjects(forRelationshipNamed: name)
            for o in current where !objects.contains(where: { $0 === o }) { context.setLinked(self, o, through: r, linked: false) }
            for o in objects where !current.contains(where: { $0 === o }) { context.setLinked(self, o, through: r, linked: true) }
            return
        }
        if r.isToMany {
            guard let inverse = r.inverseRelationship else { return }
            let listed = relatedObjects(forRelationshipNamed: name)
            let current = Set(listed)
            let wanted = Set(objects)
            let removed = current.subtracting(wanted)
            for object in removed { object.setToOne(inverse, to: nil, maintainInverse: false) }
            // Each added object's inverse maintenance marks this side changed.
            for added in wanted.subtracting(current) { added.setToOne(inverse, to: self, maintainInverse: true) }
            if !removed.isEmpty { toManyDidChange(r) }
            if r.isOrdered && r.orderAttributeIndex >= 0 {
                // Core Data's Z_FOK_: each object's place, from 1, in the order given.
                var seen = Set<ManagedObject>()
                let ordered = objects.filter { seen.insert($0).inserted }
                for (i, object) in ordered.enumerated() { object.setOrderKey(.integer(Int64(i + 1)), at: r.orderAttributeIndex) }
                for object in removed { object.setOrderKey(.null, at: r.orderAttributeIndex) }
                if removed.isEmpty && wanted == current && listed != ordered { toManyDidChange(r) }
            }
        } else {
            setToOne(r, to: objects.first, maintainInverse: true)
        }
    }

    /// Sets a to-one slot and, for one-to-one relationships, the other side too.
    func setToOne(_ r: RelationshipDescription, to destination: ManagedObject?, maintainInverse: Bool) {
        access(accessEvent(.set, attribute: entity.attributes.count + r.index)) {
            setToOneChecked(r, to: destination, maintainInverse: maintainInverse)
        }
    }

    private func setToOneChecked(_ r: RelationshipDescription, to destination: ManagedObject?, maintainInverse: Bool) {
        // Without inverse maintenance, this is the other side of one the runtime maintains.
        fireFaultIfNeeded(byRuntime: !maintainInverse)
        let old = toOne[r.toOneIndex]
        let new = destination?.objectID
        if old == new { return }
        if _slowPath(recordsUndo) { managedObjectContext?.noteForUndo(self) }
        toOne[r.toOneIndex] = new
        changedToOne.insert(r.toOneIndex)
        if !updatedFlag && !insertedFlag { managedObjectContext?.objectDidChange(self) }
        guard maintainInverse, let inverse = r.inverseRelationship else { return }
        let oldObject = old.flatMap { old in
            managedObjectContext.flatMap { context in context.registered(old) ?? (try? context.resolvedExistingObject(with: old)) }
        }
        if inverse.isToMany {
            // Moved to another ordered relationship by its to-one: last in its new order
            // (no place yet; objects without one come after the others).
            if inverse.isOrdered && inverse.orderAttributeIndex >= 0 { setOrderKey(.null, at: inverse.orderAttributeIndex) }
            // The old destination's to-many lost this object, the new one's gained it.
            oldObject?.toManyDidChange(inverse)
            destination?.toManyDidChange(inverse)
            return
        }
        // One-to-one: the destination's old partner lets go of it, as Core Data keeps the
        // graph consistent (`new.camper = johnny` nils the old campsite's camper).
        if let destination, let context = managedObjectContext, let previous = destination.toOneID(inverse), previous != objectID,
            let partner = context.registered(previous) ?? (try? context.resolvedExistingObject(with: previous))
        {
            partner.setToOne(r, to: nil, maintainInverse: false)
        }
        oldObject?.setToOne(inverse, to: nil, maintainInverse: false)
        destination?.setToOne(inverse, to: self, maintainInverse: false)
    }

    /// The objectID in to-one slot `r`, a checked read that fires the fault first.
    private func toOneID(_ r: RelationshipDescription) -> ManagedObjectID? {
        access(accessEvent(.get, attribute: entity.attributes.count + r.index)) {
            fireFaultIfNeeded()
            return toOne[r.toOneIndex]
        }
    }

    /// Sets the order column `index` (an ordered to-many relationship's `Z_FOK_`) when
    /// it differs, as an attribute change: the object is updated and saves it.
    func setOrderKey(_ value: StoredValue, at index: Int) {
        access(accessEvent(.set, attribute: index)) {
            fireFaultIfNeeded()
            guard values.indices.contains(index), StoredValue.compare(values[index], value) != 0 || values[index].isNull != value.isNull else { return }
            if _slowPath(recordsUndo) { managedObjectContext?.noteForUndo(self) }
            values[index] = value
            changedAttributes.insert(index)
            if !updatedFlag && !insertedFlag { managedObjectContext?.objectDidChange(self) }
        }
    }

    /// The members of to-many `r` changed (through the inverse to-one of another
    /// object): the object is updated, and its save checks and bumps its row's version.
    /// Core Data: adding or removing objects on the "many" side of a one-to-many gives
    /// the object on the "one" side a new version.
    func toManyDidChange(_ r: RelationshipDescription) {
        access(accessEvent(.set, attribute: entity.attributes.count + r.index)) {
            // Loads the row version the save compares with the store's.
            fireFaultIfNeeded(byRuntime: true)
            if _slowPath(recordsUndo) { managedObjectContext?.noteForUndo(self) }
            changedToMany.insert(r.index)
            if !updatedFlag && !insertedFlag { managedObjectContext?.objectDidChange(self) }
        }
    }

    /// False (after a cross-context-relationship report) when `other` belongs to
    /// another context: the relationship is then not set, as Core Data refuses it.
    func checkSameContext(_ other: ManagedObject, relationship r: RelationshipDescription) -> Bool {
        guard let mine = managedObjectContext, let theirs = other.managedObjectContext, mine !== theirs else { return true }
        let headline = "illegal attempt to establish the relationship '\(r.name)' between objects in different contexts: \(objectID) in \(mine.debugName) and \(other.objectID) in \(theirs.debugName)."
        if Diagnostics.isOn(.crossContextRelationship) {
            Diagnostics.report(
                .crossContextRelationship,
                Diagnostics.describe(self, operation: "set \(entity.name).\(r.name)", hint: "fetch the destination in this object's context with object(with:) on its objectID, then set the relationship"),
                headline)
        } else {
            FileHandle.standardError.write(Data("ctxdebug: \(headline) The relationship was not set.\n".utf8))
        }
        return false
    }

    // MARK: Faults

    /// Fires the fault. Every caller has just checked its access, reported as
    /// "fire fault" when the object was a fault, so the check is not repeated.
    /// `byRuntime`: the runtime's own bookkeeping fires it (inverse
    /// maintenance), not the app's use of the object, so a row found gone is not the
    /// app's stale use of it.
    final func fireFaultIfNeeded(byRuntime: Bool = false) {
        guard isFaultFlag, let context = managedObjectContext else { return }
        if heldRowSaveCount != .max {
            // Core Data fires it from the row cache, which every save through the
            // coordinator updates: the row held is current unless a save came since.
            let held = heldRowSaveCount
            heldRowSaveCount = .max
            if held == context.persistentStoreCoordinator?.savesSoFar.load(ordering: .relaxed) && !isInvalidated {
                isFaultFlag = false
                awakeFromFetch()
                return
            }
        }
        context.schedulingPoint(.fault)
        context.fulfillFault(self, byRuntime: byRuntime)
    }

    /// Core Data's `willAccessValue(forKey:)`: a read of the object, checked as one, that
    /// fires its fault.
    @_spi(CoreData) public final func fireFaultAsRead() {
        guard isFaultFlag else { return }
        access(accessEvent(.get, attribute: .max)) { fireFaultIfNeeded() }
    }

    /// Core Data's `includesPropertyValues = false`: an object a fetch has just registered
    /// comes back as a fault; its values are read when it is first used.
    @_spi(CoreData) public final func becomeFaultAfterFetch() {
        guard !isFaultFlag, !updatedFlag, !insertedFlag else { return }
        turnIntoFault()
    }

    func turnIntoFault() {
        isFaultFlag = true
        heldRowSaveCount = .max
        fetchedPropertyValues = nil
        values = entity.defaultValues
        toOne = Array(repeating: nil, count: entity.toOneRelationships.count)
        changedAttributes = ChangeMask()
        changedToOne = ChangeMask()
        changedToMany = ChangeMask()
    }

    // MARK: Checks

    @inline(__always)
    final func accessEvent(_ op: AccessOperation, attribute: Int) -> AccessEvent {
        AccessEvent(
            operation: op, owner: queueOwner, context: contextNumber, subject: UInt16(truncatingIfNeeded: entity.index + 1),
            member: attribute == .max ? .max : UInt16(truncatingIfNeeded: attribute), instance: instanceKey.load(ordering: .relaxed))
    }

    /// Runs one access of the object: checks it and, when the check leaves its fast
    /// path, runs it through its context's guard (ContextGuard.swift), which keeps the
    /// context's bookkeeping and the object's values whole after a violation. On the
    /// fast path, `body` runs as it is.
    @inline(__always)
    final func access<R, E: Error>(_ event: @autoclosure () -> AccessEvent, _ body: () throws(E) -> R) throws(E) -> R {
        let verdict = ConcurrencyDebug.checkGuarded(self, owner: queueOwner, event())
        if case .unguarded = verdict { return try body() }
        return try guardedAccess(verdict, body)
    }

    @inline(never)
    final func guardedAccess<R, E: Error>(_ verdict: ConcurrencyDebug.GuardVerdict, _ body: () throws(E) -> R) throws(E) -> R {
        guard let contextGuard = contextReference?.contextGuard else { return try body() }
        return try contextGuard.run(verdict, body)
    }

    @_spi(Runtime) public func describe(_ event: AccessEvent) -> AccessDescription {
        let propertyName: String? = {
            let i = Int(event.member)
            if event.member == .max { return nil }
            if i < entity.attributes.count { return entity.attributes[i].name }
            let r = i - entity.attributes.count
            return r < entity.relationships.count ? entity.relationships[r].name : nil
        }()
        let context = managedObjectContext
        let operation = event.operation.description
        let hint: String
        if queueOwner == .main {
            hint = "this object belongs to a main-queue context: touch it only on the main queue (or inside viewContext.perform { }); to use the row on another queue, pass its objectID and call object(with:) in a context of that queue"
        } else {
            hint = "wrap the access in `context.perform { }` (or performAndWait) of the object's context; to use the row on another queue, pass its objectID and call object(with:) in a context of that queue"
        }
        return AccessDescription(
            operation: operation, entity: entity.name, attribute: propertyName, objectID: objectIDFromAnyQueue.uriString,
            contextName: context?.shortName, ownerQueueLabel: queueOwner.label, fixHint: hint)
    }

    // MARK: Identity

    private var identityLock: LockedValue<Void> {
        Self.identityLocks[Int((UInt(bitPattern: ObjectIdentifier(self)) >> 6) & 63)]
    }

    /// Gives a registered object another ID (a save makes its temporary ID
    /// permanent), under its identity lock: a wrong-queue access's report may read
    /// the ID from another thread at the same moment.
    final func replaceObjectID(with newID: ManagedObjectID) {
        identityLock.withLock { _ in objectID = newID }
    }

    /// `objectID`, whole, as a thread other than the owner's may read it.
    final var objectIDFromAnyQueue: ManagedObjectID {
        identityLock.withLock { _ in objectID }
    }

    public final override func isEqual(_ object: Any?) -> Bool { self === (object as AnyObject?) }
    public final override var hash: Int { ObjectIdentifier(self).hashValue }

    open override var description: String {
        if isFaultFlag { return "<\(entity.name) \(objectID)> (fault)" }
        let fields = entity.attributes.filter { !$0.isOrderKey }.map { "\($0.name) = \(Self.render(values[$0.index]))" }
        return "<\(entity.name) \(objectID)> { \(fields.joined(separator: "; ")) }"
    }

    private static func render(_ v: StoredValue) -> String {
        switch v {
        case .null: "nil"
        case .integer(let i): String(i)
        case .real(let d): String(d)
        case .text(let s): "\"\(s)\""
        case .blob(let d): "<\(d.count) bytes>"
        }
    }
}

@available(*, unavailable, message: "A managed object is confined to its context's queue; pass its objectID instead.")
extension ManagedObject: @unchecked Sendable {}

/// A context's weak reference to itself, shared by its objects, and the context's
/// guard, which its objects' accesses reach through it. Set once, in the context's
/// init, before the context is shared.
final class ContextReference: @unchecked Sendable {
    weak var context: ManagedObjectContext?
    let contextGuard: ContextGuard

    init(contextGuard: ContextGuard) {
        self.contextGuard = contextGuard
    }
}

/// A `ManagedObject` subclass whose entity is not named as the class is:
/// `final class Item: ManagedObject, CustomEntityName { static let entityName = "TodoItem" }`.
/// (A protocol, not a class property of ManagedObject, so that the name stays free for
/// an app's own `entityName` on CoreData's `NSManagedObject`, a common extension.)
public protocol CustomEntityName: ManagedObject {
    static var entityName: String { get }
}

/// The runtime's own members of `ManagedObject` whose names Core Data gives another
/// type. Declared in this protocol's extension rather than in the class, so that
/// CoreData's `NSManagedObject`, and an app's own extensions, can declare `entity`
/// (Core Data's `NSEntityDescription`) and `entity(in:)` with types of their own: a
/// class's member shadows a protocol extension's, where a subclass could only override
/// a class member with the same type.
public protocol ManagedObjectRuntimeMembers: AnyObject {}

extension ManagedObjectRuntimeMembers where Self: ManagedObject {
    /// The object's entity.
    public var entity: EntityDescription { runtimeEntity }

    /// The entity of this class in `context`'s model.
    public static func entity(in context: ManagedObjectContext) -> EntityDescription {
        context.model.entity(for: self)
    }
}
