public import Foundation

/// Foundation's `UndoManager`, which Foundation on Linux does not have: undo and redo
/// stacks of groups of actions, as Apple's `NSUndoManager` keeps them. A context with
/// one (`ManagedObjectContext.undoManager`) registers its changes with it.
///
/// What Apple documents, kept here: an action registered while undoing goes on the redo
/// stack, while redoing on the undo stack, and otherwise on the undo stack, and clears
/// the redo stack; nested groups undo as one; an empty group is dropped; `levelsOfUndo`
/// keeps only the newest groups; `undo()` closes the group `groupsByEvent` opened and
/// refuses to run inside a group the app opened. One difference: Apple closes the group
/// `groupsByEvent` opens at the end of the run loop's pass, and Linux has no run loop
/// observer for it, so such a group stays open until `undo()`, `redo()` or
/// `endUndoGrouping()`. A context's changes never rely on it: each time a context
/// processes its pending changes it registers them in a group of their own.
///
/// Not `Sendable`, as Apple's: use an undo manager on one queue (its context's).
open class UndoManager {
    private struct Action {
        weak var target: AnyObject?
        let run: (AnyObject) -> Void
    }

    private indirect enum Entry {
        case action(Action)
        case group([Entry], name: String)
    }

    private var undoStack: [Entry] = []
    private var redoStack: [Entry] = []
    /// The groups open now, outermost first: their entries so far and their names.
    private var openGroups: [(entries: [Entry], name: String)] = []
    private var openedByEvent = false
    private var disableCount = 0
    /// The contexts that register their pending changes at each checkpoint, as Core
    /// Data's contexts observe `NSUndoManagerCheckpoint`.
    var checkpointObservers: [ObjectIdentifier: () -> Void] = [:]

    public private(set) var isUndoing = false
    public private(set) var isRedoing = false
    /// Whether registering an action outside any group opens one (Apple's default, true).
    open var groupsByEvent = true
    /// How many top-level groups the undo stack keeps; 0 (the default) keeps all.
    open var levelsOfUndo = 0 {
        didSet { trim() }
    }

    public init() {}

    // MARK: Registering

    /// Registers `handler`, to run with `target` when the action is undone (or redone).
    open func registerUndo<Target: AnyObject>(withTarget target: Target, handler: @escaping (Target) -> Void) {
        guard isUndoRegistrationEnabled else { return }
        if openGroups.isEmpty {
            precondition(
                groupsByEvent,
                "UndoManager: registerUndo(withTarget:handler:) was called outside any undo group, and groupsByEvent is false. Call beginUndoGrouping() first.")
            beginUndoGrouping()
            openedByEvent = true
        }
        if !isUndoing && !isRedoing { redoStack.removeAll() }
        let action = Action(target: target, run: { handler($0 as! Target) })
        openGroups[openGroups.count - 1].entries.append(.action(action))
    }

    /// The number of groups open now.
    open var groupingLevel: Int { openGroups.count }

    open func beginUndoGrouping() {
        if !openGroups.isEmpty { checkpoint() }
        openGroups.append(([], ""))
        NotificationCenter.default.post(name: .NSUndoManagerDidOpenUndoGroup, object: self)
    }

    open func endUndoGrouping() {
        precondition(!openGroups.isEmpty, "UndoManager: endUndoGrouping() was called without a matching beginUndoGrouping().")
        checkpoint()
        NotificationCenter.default.post(name: .NSUndoManagerWillCloseUndoGroup, object: self)
        let group = openGroups.removeLast()
        if openGroups.isEmpty { openedByEvent = false }
        NotificationCenter.default.post(name: .NSUndoManagerDidCloseUndoGroup, object: self)
        // An empty group is dropped, as Apple's undo manager drops it.
        guard !group.entries.isEmpty else { return }
        let entry = Entry.group(group.entries, name: group.name)
        if !openGroups.isEmpty {
            openGroups[openGroups.count - 1].entries.append(entry)
        } else if isUndoing {
            redoStack.append(entry)
        } else {
            undoStack.append(entry)
            trim()
        }
    }

    open var isUndoRegistrationEnabled: Bool { disableCount == 0 }
    /// Stops registration until as many `enableUndoRegistration()` calls.
    open func disableUndoRegistration() { disableCount += 1 }
    open func enableUndoRegistration() {
        precondition(disableCount > 0, "UndoManager: enableUndoRegistration() was called more often than disableUndoRegistration().")
        disableCount -= 1
    }

    // MARK: Undoing and redoing

    open var canUndo: Bool { !undoStack.isEmpty || openGroups.count == 1 && openedByEvent && !openGroups[0].entries.isEmpty }
    open var canRedo: Bool {
        checkpoint()
        return !redoStack.isEmpty
    }

    /// Closes the group `groupsByEvent` opened, if one is open, and undoes the newest group.
    open func undo() {
        closeEventGroup(caller: "undo()")
        undoNestedGroup()
    }

    /// Undoes the newest group on the undo stack; its actions register the redo group.
    open func undoNestedGroup() {
        guard let entry = undoStack.popLast() else { return }
        NotificationCenter.default.post(name: .NSUndoManagerWillUndoChange, object: self)
        isUndoing = true
        run(entry)
        isUndoing = false
        NotificationCenter.default.post(name: .NSUndoManagerDidUndoChange, object: self)
    }

    /// Redoes the newest undone group; its actions register the undo group again.
    open func redo() {
        closeEventGroup(caller: "redo()")
        guard let entry = redoStack.popLast() else { return }
        NotificationCenter.default.post(name: .NSUndoManagerWillRedoChange, object: self)
        isRedoing = true
        run(entry)
        isRedoing = false
        NotificationCenter.default.post(name: .NSUndoManagerDidRedoChange, object: self)
    }

    /// Clears both stacks, drops the open groups and enables registration again.
    open func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        openGroups.removeAll()
        openedByEvent = false
        disableCount = 0
    }

    /// Removes every action whose target is `target`.
    open func removeAllActions(withTarget target: AnyObject) {
        undoStack = Self.removing(target, from: undoStack)
        redoStack = Self.removing(target, from: redoStack)
        for i in openGroups.indices { openGroups[i].entries = Self.removing(target, from: openGroups[i].entries) }
    }

    // MARK: Action names

    /// Names the group being registered (the innermost open group).
    open func setActionName(_ actionName: String) {
        guard !openGroups.isEmpty else { return }
        openGroups[openGroups.count - 1].name = actionName
    }

    open var undoActionName: String {
        if openedByEvent, let group = openGroups.first, !group.entries.isEmpty { return group.name }
        return Self.name(of: undoStack.last)
    }
    open var redoActionName: String { Self.name(of: redoStack.last) }
    open var undoMenuItemTitle: String { undoMenuTitle(forUndoActionName: undoActionName) }
    open var redoMenuItemTitle: String { redoMenuTitle(forUndoActionName: redoActionName) }
    open func undoMenuTitle(forUndoActionName actionName: String) -> String { actionName.isEmpty ? "Undo" : "Undo \(actionName)" }
    open func redoMenuTitle(forUndoActionName actionName: String) -> String { actionName.isEmpty ? "Redo" : "Redo \(actionName)" }

    // MARK: Private

    /// Apple's checkpoint: "whenever an NSUndoManager opens or closes an undo group
    /// (except when it opens a top-level group) and when checking the redo stack in canRedo".
    private func checkpoint() {
        for observer in checkpointObservers.values { observer() }
        NotificationCenter.default.post(name: .NSUndoManagerCheckpoint, object: self)
    }

    private func closeEventGroup(caller: String) {
        if openGroups.count == 1 && openedByEvent { endUndoGrouping() }
        precondition(
            openGroups.isEmpty,
            "UndoManager: \(caller) was called with \(openGroups.count) undo group(s) open. Call endUndoGrouping() for each beginUndoGrouping() first.")
    }

    /// Runs a group's actions newest first, inside one group of the opposite stack.
    private func run(_ entry: Entry) {
        beginUndoGrouping()
        if case .group(_, let name) = entry { setActionName(name) }
        perform(entry)
        endUndoGrouping()
    }

    private func perform(_ entry: Entry) {
        switch entry {
        case .action(let action):
            if let target = action.target { action.run(target) }
        case .group(let entries, _):
            for e in entries.reversed() { perform(e) }
        }
    }

    private func trim() {
        guard levelsOfUndo > 0, undoStack.count > levelsOfUndo else { return }
        undoStack.removeFirst(undoStack.count - levelsOfUndo)
    }

    private static func name(of entry: Entry?) -> String {
        if case .group(_, let name)? = entry { return name }
        return ""
    }

    private static func removing(_ target: AnyObject, from entries: [Entry]) -> [Entry] {
        entries.compactMap { entry in
            switch entry {
            case .action(let action):
                return action.target === target ? nil : entry
            case .group(let inner, let name):
                let kept = removing(target, from: inner)
                return kept.isEmpty ? nil : .group(kept, name: name)
            }
        }
    }
}

extension Notification.Name {
    public static let NSUndoManagerCheckpoint = Notification.Name("NSUndoManagerCheckpointNotification")
    public static let NSUndoManagerDidOpenUndoGroup = Notification.Name("NSUndoManagerDidOpenUndoGroupNotification")
    public static let NSUndoManagerWillCloseUndoGroup = Notification.Name("NSUndoManagerWillCloseUndoGroupNotification")
    public static let NSUndoManagerDidCloseUndoGroup = Notification.Name("NSUndoManagerDidCloseUndoGroupNotification")
    public static let NSUndoManagerWillUndoChange = Notification.Name("NSUndoManagerWillUndoChangeNotification")
    public static let NSUndoManagerDidUndoChange = Notification.Name("NSUndoManagerDidUndoChangeNotification")
    public static let NSUndoManagerWillRedoChange = Notification.Name("NSUndoManagerWillRedoChangeNotification")
    public static let NSUndoManagerDidRedoChange = Notification.Name("NSUndoManagerDidRedoChangeNotification")
}
