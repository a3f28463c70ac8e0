import ManagedContext

/// The sync engine saves, then updates the UI's badge: UI code that reads a background
/// context synchronously (`exporter.performAndWait` from the main queue). Meanwhile the
/// export, on the background context, reads the UI's selection synchronously
/// (`ui.performAndWait`). When the badge update reaches the main queue while the export
/// holds its context and before it asks for the main queue, each waits for the other
/// forever. The fix makes the badge update asynchronous (`perform`, then back to the
/// main queue with the result).
let performAndWaitDeadlock = CorpusCase(
    name: "perform-and-wait-deadlock",
    summary: "a main-queue block calls background.performAndWait while a background block calls main.performAndWait: both wait forever",
    kind: .deadlock,
    fix: "the main-queue code reads the background context with perform and hops back with ui.perform, never performAndWait",
    badOrder: "the sync's block queues the badge update on the main queue while the export holds its context, before the export asks for the main queue",
    plainHitRate: "0/200",
    deadlocks: true
) { fixed, order in
    let stack = try CorpusStack()
    defer { stack.destroy() }
    let id = try stack.seed(["report"])[0]
    let ui = stack.mainContext(), exporter = stack.privateContext("exporter"), sync = stack.privateContext("sync")
    let badge = Shared<Int?>(nil)
    @Sendable func itemCount() -> Int { (try? exporter.count(for: FetchRequest<Item>())) ?? -1 }
    sync.perform {
        importBatch(into: sync)
        (sync.object(with: id) as! Item).revision = 2
        try? sync.save()
        ui.perform {  // update the badge
            if fixed {
                exporter.perform {
                    let n = itemCount()
                    ui.perform { badge.set(n) }
                }
            } else {
                badge.set(exporter.performAndWait { itemCount() })
            }
        }
        order.reached("badge-queued")
    }
    let exported = Shared<String?>(nil)
    exporter.performAndWait {  // the export reads the selection from the UI
        order.wait("badge-queued")
        let title = ui.performAndWait { (ui.object(with: id) as! Item).title }
        exported.set(title)
    }
    settle([sync, ui, exporter])
    try CorpusCheck.that(exported.value == "report", "the export read \(exported.value ?? "nil")")
    try CorpusCheck.that(badge.value == 1, "the badge shows \(badge.value.map { "\($0)" } ?? "nothing")")
}

/// The user types into an item's note (one block) and autosave follows (another). The
/// sync engine changes the item's price; its did-save observer refreshes the item in
/// the UI context with `refresh(_:mergeChanges: false)`. When that refresh lands
/// between the keystroke and the autosave, it throws the typed text away. The fix
/// refreshes with `mergeChanges: true`, which keeps unsaved changes on top.
let refreshDropsEdit = CorpusCase(
    name: "refresh-drops-unsaved-edit",
    summary: "refresh(_:mergeChanges: false) from a did-save observer lands between a keystroke and the autosave: the typed text is dropped",
    kind: .refresh,
    fix: "refresh(_:mergeChanges: true), which reloads the object and keeps its unsaved changes on top",
    badOrder: "the sync's save, and the refresh its observer queues, come between the keystroke and the autosave",
    plainHitRate: "0/200"
) { fixed, order in
    let stack = try CorpusStack()
    defer { stack.destroy() }
    let id = try stack.seed(["groceries"]) { $0.note = "milk" }[0]
    let ui = stack.mainContext(), sync = stack.privateContext("sync", policy: .mergeByPropertyObjectTrump)
    ui.mergePolicy = .mergeByPropertyObjectTrump
    let editing = try ui.performAndWait { Held(try ui.existingObject(with: id) as! Item) }
    let observer = DidSaveObserver(sync) { _ in ui.perform { ui.refresh(editing.object, mergeChanges: fixed) } }
    defer { observer.remove() }
    sync.perform {
        importBatch(into: sync)
        (sync.object(with: id) as! Item).price = 3
        order.wait("typed")  // forced: the refresh is queued after the keystroke
        try? sync.save()
        order.reached("synced")
    }
    ui.perform { editing.object.note = "milk, eggs" }  // a keystroke
    order.reached("typed")
    order.wait("synced")
    ui.perform { try? ui.save() }  // autosave
    settle([sync, ui])
    let stored = try stack.stored { c in
        let item = try c.existingObject(with: id) as! Item
        return (item.note, item.price)
    }
    try CorpusCheck.that(stored.0 == "milk, eggs", "the typed note was dropped (note \(stored.0 ?? "nil"))")
    try CorpusCheck.that(stored.1 == 3, "the sync's price was lost")
}

/// The autosave timer fires on its own queue and saves the editor context; the user
/// taps Cancel, which rolls the editor back. When the autosave is queued before the
/// Cancel, the edit the user cancelled is already in the store. The fix keeps the
/// edit in a child scratchpad that Cancel discards and autosave never sees.
let autosaveSavesCancelledEdit = CorpusCase(
    name: "autosave-saves-cancelled-edit",
    summary: "an autosave queued from a timer runs before the user's Cancel (rollback): the cancelled edit is saved",
    kind: .rollback,
    fix: "edit in a child scratchpad context: Cancel discards the child, autosave saves only the parent",
    badOrder: "the timer's block queues the autosave on the editor before the user's Cancel reaches the editor",
    plainHitRate: "0/200"
) { fixed, order in
    let stack = try CorpusStack()
    defer { stack.destroy() }
    let id = try stack.seed(["profile"]) { $0.note = "original" }[0]
    let editor = stack.privateContext("editor"), timer = stack.privateContext("autosave-timer")
    let scratch = fixed ? stack.child(of: editor, "scratchpad") : editor
    scratch.performAndWait { (scratch.object(with: id) as! Item).note = "half-typed" }
    timer.perform {  // the timer fires: it saves the other open documents, then the editor
        importBatch(into: timer)
        editor.perform { try? editor.save() }
        order.reached("autosave-queued")
    }
    order.wait("autosave-queued")
    scratch.performAndWait { scratch.rollback() }  // Cancel
    settle([timer, editor, scratch])
    let note = try stack.stored { c in (try c.existingObject(with: id) as! Item).note }
    try CorpusCheck.that(note == "original", "the cancelled edit was saved (note \(note ?? "nil"))")
}

/// The Save of an editor that is a private child of the main-queue context waits for the
/// main queue (its changes go into the parent there). Meanwhile, after a sync, UI code
/// reads the editor's draft count synchronously (`editor.performAndWait` on the main
/// queue). When that UI block is queued on the main queue before the child's save asks
/// for it, each waits for the other forever. The fix reads the editor asynchronously.
let childSaveWaitsForBusyMainQueue = CorpusCase(
    name: "child-save-waits-for-busy-main-queue",
    summary: "a private child of the main-queue context saves (waiting for the main queue) while a main-queue block waits for the child: deadlock",
    kind: .deadlock,
    fix: "the main-queue code reads the child with perform and hops back with ui.perform, never performAndWait",
    badOrder: "the sync's block queues the badge update on the main queue while the editor's save holds the editor, before it asks for the main queue",
    plainHitRate: "0/200",
    deadlocks: true
) { fixed, order in
    let stack = try CorpusStack()
    defer { stack.destroy() }
    let id = try stack.seed(["feed"])[0]
    let ui = stack.mainContext(), sync = stack.privateContext("sync")
    let editor = stack.child(of: ui, "editor")
    let badge = Shared<Int?>(nil)
    sync.perform {
        importBatch(into: sync)
        (sync.object(with: id) as! Item).revision = 2
        try? sync.save()
        ui.perform {  // show how many drafts the editor holds
            if fixed {
                editor.perform {
                    let n = editor.insertedObjects.count
                    ui.perform { badge.set(n) }
                }
            } else {
                badge.set(editor.performAndWait { editor.insertedObjects.count })
            }
        }
        order.reached("badge-queued")
    }
    editor.performAndWait {  // Save the draft into the main-queue parent
        order.wait("badge-queued")
        Item(context: editor).title = "draft"
        try? editor.save()
    }
    settle([sync, ui, editor])
    try ui.performAndWait { try ui.save() }
    let drafts = try stack.stored { c in try c.count(for: FetchRequest<Item>(predicate: \Item.title == "draft")) }
    try CorpusCheck.that(drafts == 1, "the store holds \(drafts) drafts")
    try CorpusCheck.that(badge.value == 0, "the badge shows \(badge.value.map { "\($0)" } ?? "nothing")")
}
