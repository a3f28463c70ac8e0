import ManagedContext

/// The list screen shows a header counted in the store ("1 done") above rows drawn
/// from its fetched objects. Marking an item done queues the write on the background
/// context, behind the sync it is busy with; a did-save observer enqueues each merge on
/// the main queue. The bug: the tap handler redraws right after queuing the write. When
/// the write commits before that redraw, the redraw runs before its merge: the header
/// counts the new row, the rows show the stale object. The fix redraws from the
/// background block after its save, behind the merge on the main queue.
let mergeAfterFetch = CorpusCase(
    name: "merge-after-fetch",
    summary: "a redraw fetches between a background save and its did-save merge: the header counts the new row, the rows show the stale object",
    kind: .mergeVersusFetch,
    fix: "redraw from the background block after its save (behind the merge), not right after queuing the write",
    badOrder: "the background block (its import, then the write) saves before the tap handler's redraw",
    plainHitRate: "0/200"
) { fixed, order in
    let stack = try CorpusStack()
    defer { stack.destroy() }
    let ids = try stack.seed(["milk", "eggs", "bread"])
    let ui = stack.mainContext(), background = stack.privateContext("background")
    let merger = DidSaveObserver(background) { changes in ui.perform { ui.mergeChanges(changes) } }
    defer { merger.remove() }
    let screen = Shared<(header: Int, rows: Int)?>(nil)
    // The list is on screen: its objects are registered in the UI context, held by the list.
    let list = try ui.performAndWait { Array(try ui.fetch(FetchRequest<Item>())) }
    @Sendable func redraw() {
        let header = (try? ui.count(for: FetchRequest<Item>(predicate: \Item.done == true))) ?? -1
        let rows = ((try? ui.fetch(FetchRequest<Item>())).map(Array.init) ?? []).filter { $0.done == true }.count
        screen.set((header, rows))
    }
    ui.perform {  // the user taps "done" on the first row
        background.perform {
            importBatch(into: background)  // the sync the background context is busy with
            (background.object(with: ids[0]) as! Item).done = true
            try? background.save()
            order.reached("saved")
            if fixed { ui.perform { redraw() } }
        }
        if !fixed {
            order.wait("saved")
            redraw()
        }
    }
    settle([background, ui])
    withExtendedLifetime(list) {}
    let shown = screen.value
    try CorpusCheck.that(shown != nil, "the screen was never redrawn")
    try CorpusCheck.that(shown!.header == shown!.rows, "the header says \(shown!.header) done but \(shown!.rows) rows show done")
}

/// Search runs on a background context and hands the matching objectIDs to the UI,
/// which shows each item's title from its own (registered) objects. A rename saves on
/// another background context, after the import it is busy with. When the search's
/// fetch sees the rename but the UI shows the results before the rename's merge, a
/// result's title does not match the query. The fix refreshes each result object
/// before showing it.
let searchResultsBeforeMerge = CorpusCase(
    name: "search-results-before-merge",
    summary: "search results fetched after a rename's save are shown before its merge: a result's title does not match the query",
    kind: .mergeVersusFetch,
    fix: "refresh each result (refresh(_:mergeChanges: true)) before showing it",
    badOrder: "the rename commits before the search's fetch, and its merge is queued on the main queue after the results",
    plainHitRate: "0/200"
) { fixed, order in
    let stack = try CorpusStack()
    defer { stack.destroy() }
    let ids = try stack.seed(["milk", "oat flakes"])
    let ui = stack.mainContext(), renamer = stack.privateContext("renamer"), search = stack.privateContext("search")
    let merger = DidSaveObserver(renamer) { changes in
        if !changes.updated.isEmpty {  // the rename's save (the import's only inserts)
            order.reached("renamed")
            order.wait("results-queued")
        }
        ui.perform { ui.mergeChanges(changes) }
    }
    defer { merger.remove() }
    let list = try ui.performAndWait { Array(try ui.fetch(FetchRequest<Item>())) }  // on screen
    let shown = Shared<[String]>([])
    renamer.perform {
        importBatch(into: renamer)
        (renamer.object(with: ids[0]) as! Item).title = "oat milk"
        try? renamer.save()
    }
    search.performAndWait {  // the user types "oat"
        order.wait("renamed")
        let found = (try? search.fetchObjectIDs(FetchRequest<Item>(predicate: .contains(\Item.title, "oat")))) ?? []
        ui.perform {
            let items = found.map { ui.object(with: $0) as! Item }
            if fixed { items.forEach { ui.refresh($0, mergeChanges: true) } }
            shown.set(items.map { $0.title ?? "" })
        }
        order.reached("results-queued")
    }
    settle([renamer, search, ui])
    withExtendedLifetime(list) {}
    let titles = shown.value
    try CorpusCheck.that(titles.allSatisfy { $0.contains("oat") }, "the results for 'oat' show \(titles)")
}

/// The list's view controller starts a background refresh and then installs its
/// did-save observer (two lines in the wrong order). When the refresh saves before the
/// observer is installed, its merge is never enqueued and the list keeps the old value
/// for good. The fix installs the observer first.
let observerInstalledAfterImport = CorpusCase(
    name: "observer-installed-after-import",
    summary: "the merge observer is installed after the background refresh starts: a save that lands first is never merged",
    kind: .notification,
    fix: "install the did-save observer before starting the refresh",
    badOrder: "the refresher's block saves before viewDidLoad installs the observer",
    plainHitRate: "0/200"
) { fixed, order in
    let stack = try CorpusStack()
    defer { stack.destroy() }
    let id = try stack.seed(["inbox"]) { $0.note = "v1" }[0]
    let ui = stack.mainContext(), refresher = stack.privateContext("refresher")
    let observer = Shared<DidSaveObserver?>(nil)
    defer { observer.value?.remove() }
    let shown = try ui.performAndWait { Held(try ui.existingObject(with: id) as! Item) }
    @Sendable func installMerger() {
        observer.set(DidSaveObserver(refresher) { changes in ui.perform { ui.mergeChanges(changes) } })
    }
    ui.perform {  // viewDidLoad
        if fixed { installMerger() }
        refresher.perform {
            importBatch(into: refresher)
            (refresher.object(with: id) as! Item).note = "v2"
            try? refresher.save()
            order.reached("saved")
        }
        _ = try? ui.fetch(FetchRequest<Item>())  // the list
        order.wait("saved")
        if !fixed { installMerger() }
    }
    settle([ui, refresher, ui])
    let note = ui.performAndWait { shown.object.note }
    try CorpusCheck.that(note == "v2", "the list shows note \(note ?? "nil") after the refresh saved v2")
}

/// The same screen turns on `automaticallyMergesChangesFromParent` after it starts the
/// background refresh. A save that lands before the flag is set is never merged. The
/// fix sets the flag before any refresh starts.
let automaticMergingEnabledLate = CorpusCase(
    name: "automatic-merging-enabled-late",
    summary: "automaticallyMergesChangesFromParent is turned on after the refresh starts: a save that lands first is never merged",
    kind: .notification,
    fix: "turn automaticallyMergesChangesFromParent on before starting the refresh",
    badOrder: "the refresher's block saves before viewDidLoad turns automatic merging on",
    plainHitRate: "0/200"
) { fixed, order in
    let stack = try CorpusStack()
    defer { stack.destroy() }
    let id = try stack.seed(["inbox"]) { $0.note = "v1" }[0]
    let ui = stack.mainContext(), refresher = stack.privateContext("refresher")
    let shown = try ui.performAndWait { Held(try ui.existingObject(with: id) as! Item) }
    ui.perform {
        if fixed { ui.automaticallyMergesChangesFromParent = true }
        refresher.perform {
            importBatch(into: refresher)
            (refresher.object(with: id) as! Item).note = "v2"
            try? refresher.save()
            order.reached("saved")
        }
        _ = try? ui.fetch(FetchRequest<Item>())  // the list
        order.wait("saved")
        if !fixed { ui.automaticallyMergesChangesFromParent = true }
    }
    settle([ui, refresher, ui])
    let note = ui.performAndWait { shown.object.note }
    try CorpusCheck.that(note == "v2", "the list shows note \(note ?? "nil") after the refresh saved v2")
}
