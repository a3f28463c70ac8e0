import ManagedContext

/// The uploader context, busy with earlier uploads, asks the editor for the new item's
/// objectID and queues it for upload; the user taps Save on the editor right then. When
/// the uploader's request reaches the editor first, the ID it takes is the temporary
/// one, which names nothing once the save gives the item its permanent ID: the upload
/// finds nothing. The fix obtains permanent IDs before handing one over.
let temporaryIDHandedOver = CorpusCase(
    name: "temporary-id-handed-over",
    summary: "a new item's objectID is handed to the uploader before the save makes it permanent: the uploader's lookup finds nothing",
    kind: .temporaryID,
    fix: "call obtainPermanentIDs(for:) before reading the objectID to hand over",
    badOrder: "the uploader's block (its uploads, then the request for the ID) reaches the editor before the user's Save does",
    plainHitRate: "0/200"
) { fixed, order in
    let stack = try CorpusStack()
    defer { stack.destroy() }
    let editor = stack.privateContext("editor"), uploader = stack.privateContext("uploader")
    let uploads = Shared<[ManagedObjectID]>([])
    // The user is composing a new item in the editor (inserted, unsaved).
    let draft = editor.performAndWait {
        let item = Item(context: editor)
        item.title = "new post"
        return Held(item)
    }
    uploader.perform {
        importBatch(into: uploader)  // the uploads it is busy with
        editor.perform {  // "give me the new post's ID"
            if fixed { try? editor.obtainPermanentIDs(for: [draft.object]) }
            let id = draft.object.objectID
            uploads.update { $0.append(id) }
            order.reached("handed-over")
        }
    }
    order.wait("handed-over")
    editor.performAndWait { try? editor.save() }  // Save
    settle([uploader, editor])
    let queued = uploads.value
    try CorpusCheck.that(queued.count == 1, "the upload queue holds \(queued.count) IDs")
    // The uploader resolves the ID in its own context.
    let found = try stack.stored { c in (try? c.existingObject(with: queued[0]) as? Item)?.title }
    try CorpusCheck.that(found == "new post", "the uploader finds nothing for \(queued[0]): the ID was temporary when it was handed over")
}

/// The detail screen keeps the selected item (an object of the UI context) across
/// blocks. A batch import finishes and resets the UI context to refetch. When the reset
/// lands before the user's edit, the edit writes through the kept object, which the
/// reset invalidated: it reads nil, so appending to the note wipes it. The fix keeps
/// the objectID and looks the object up inside each block.
let resetWhileHoldingObjects = CorpusCase(
    name: "reset-while-a-block-holds-objects",
    summary: "a reset lands before a queued block that uses an object kept from before it: the invalidated object reads nil and the edit wipes the note",
    kind: .reset,
    fix: "keep the objectID, not the object, and call object(with:) inside the block",
    badOrder: "the importer's block (the import, then the reset it queues on the UI) runs before the user's edit reaches the UI's queue",
    plainHitRate: "0/200"
) { fixed, order in
    let stack = try CorpusStack()
    defer { stack.destroy() }
    let id = try stack.seed(["groceries"]) { $0.note = "milk" }[0]
    let ui = stack.mainContext(), importer = stack.privateContext("importer")
    let selected = try ui.performAndWait { Held(try ui.existingObject(with: id) as! Item) }
    importer.perform {  // a batch import, then "reset and refetch" on the UI
        importBatch(into: importer)
        ui.perform {
            ui.reset()
            _ = try? ui.fetch(FetchRequest<Item>())
        }
        order.reached("reset-queued")
    }
    order.wait("reset-queued")
    ui.performAndWait {  // the user adds to the selected item's note
        let item = fixed ? ui.object(with: id) as! Item : selected.object
        item.note = (item.note ?? "") + ", eggs"
        try? ui.save()
    }
    settle([importer, ui])
    let note = try stack.stored { c in (try c.existingObject(with: id) as! Item).note }
    try CorpusCheck.that(note == "milk, eggs", "the note is \(note.map { "'\($0)'" } ?? "nil"), not 'milk, eggs'")
}

/// An importer inserts a batch in one block and saves it in the next. A memory-pressure
/// handler on the monitor's queue, after recording its own stats, resets the importer to
/// drop its cached objects. When the reset lands between the insert and the save, the
/// batch is gone. The fix resets only a context without unsaved changes.
let resetDropsPendingBatch = CorpusCase(
    name: "reset-drops-pending-batch",
    summary: "a memory-pressure reset lands between an import's insert block and its save block: the batch is never saved",
    kind: .reset,
    fix: "the memory-pressure handler skips the reset while the context has changes (hasChanges)",
    badOrder: "the monitor's block queues the trim on the importer between the batch and its save",
    plainHitRate: "0/200"
) { fixed, order in
    let stack = try CorpusStack()
    defer { stack.destroy() }
    let importer = stack.privateContext("importer"), monitor = stack.privateContext("memory-monitor")
    importer.perform {  // the batch
        for n in 1...3 { Item(context: importer).title = "imported \(n)" }
    }
    monitor.perform {  // memory pressure: record the stats, then trim the importer's cache
        importBatch(into: monitor)
        importer.perform {
            if !fixed || !importer.hasChanges { importer.reset() }
        }
        order.reached("trim-queued")
    }
    order.wait("trim-queued")
    importer.performAndWait { try? importer.save() }
    settle([monitor, importer])
    let saved = try stack.stored { c in try c.count(for: FetchRequest<Item>()) }
    try CorpusCheck.that(saved == 3, "the store holds \(saved) of the 3 imported items")
}

/// An editor (a child of the root context) saves the user's entry into the root, then
/// the root saves. A memory-pressure handler on the monitor's queue, after
/// recording its stats, resets the root. When the reset lands between the child's save
/// and the root's, the entry is dropped and never reaches the store. The fix saves the
/// root before resetting it.
let childSavedIntoResetParent = CorpusCase(
    name: "child-saved-into-reset-parent",
    summary: "the root context is reset between a child's save into it and its own save: the child's entry never reaches the store",
    kind: .parentChild,
    fix: "the memory-pressure handler saves the root (if it has changes) before resetting it",
    badOrder: "the monitor's block queues the root's reset after the editor's save into the root and before the root's own save",
    plainHitRate: "0/200"
) { fixed, order in
    let stack = try CorpusStack()
    defer { stack.destroy() }
    let root = stack.privateContext("root"), monitor = stack.privateContext("memory-monitor")
    let editor = stack.child(of: root, "editor")
    editor.performAndWait { Item(context: editor).title = "entry" }
    monitor.perform {
        importBatch(into: monitor)
        // Forced, the reset is queued only once the entry is in the root: a reset that
        // runs before the child's save drops nothing.
        order.wait("child-saved")
        root.perform {
            if fixed && root.hasChanges { try? root.save() }
            root.reset()
        }
        order.reached("reset-queued")
    }
    // Save: into the parent, then the parent to the store.
    editor.performAndWait { try? editor.save() }
    order.reached("child-saved")
    order.wait("reset-queued")
    root.performAndWait { try? root.save() }
    settle([monitor, editor, root])
    let stored = try stack.stored { c in try c.count(for: FetchRequest<Item>(predicate: \Item.title == "entry")) }
    try CorpusCheck.that(stored == 1, "the store holds \(stored) copies of the saved entry")
}
