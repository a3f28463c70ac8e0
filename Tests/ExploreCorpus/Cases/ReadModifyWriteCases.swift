import ManagedContext

/// Finds the tag named `name` in `context` or inserts it.
private func findOrCreateTag(_ name: String, in context: ManagedObjectContext) {
    let existing = (try? context.count(for: FetchRequest<Tag>(predicate: \Tag.name == name))) ?? 0
    if existing == 0 { Tag(context: context).name = name }
}

/// The share extension tags a link "swift" in a child of the root context (check,
/// insert, save up the chain) while the app tags an item "swift" on the root itself.
/// The child's check reads through the root; when it runs before the root's own
/// find-or-create, both see no tag and both insert one. The fix runs the child's
/// find-or-create on the root, in one block with the root's save.
let findOrCreateDuplicates = CorpusCase(
    name: "find-or-create-duplicates",
    summary: "two blocks both check that the tag is missing before either inserts it: the store ends with two 'swift' tags",
    kind: .duplicateInsert,
    fix: "run the child's find-or-create on the root context (root.performAndWait), atomic with the root's own",
    badOrder: "the share extension's check (through the root) runs before the app's find-or-create on the root",
    plainHitRate: "0/200"
) { fixed, order in
    let stack = try CorpusStack()
    defer { stack.destroy() }
    let root = stack.privateContext("root")
    let sharer = stack.child(of: root, "share-extension")
    sharer.perform {
        stack.saveHistory()
        if fixed {
            root.performAndWait {
                findOrCreateTag("swift", in: root)
                try? root.save()
            }
            return
        }
        findOrCreateTag("swift", in: sharer)
        order.reached("checked")
        order.wait("root-saved")
        try? sharer.save()
        root.perform { try? root.save() }
    }
    order.wait("checked")
    root.performAndWait {
        findOrCreateTag("swift", in: root)
        try? root.save()
    }
    order.reached("root-saved")
    settle([sharer, root])
    let tags = try stack.stored { c in try c.count(for: FetchRequest<Tag>(predicate: \Tag.name == "swift")) }
    try CorpusCheck.that(tags == 1, "the store holds \(tags) 'swift' tags")
}

/// A tagging sheet appends "swift" to an article's tags in a child of the root context
/// while the app appends "featured" on the root. The child reads the tags through the
/// root; when it reads before the root's append and saves after it, its stale list
/// replaces the root's (a child's save never conflicts with its parent). The fix does
/// the read-modify-write on the root, in one block.
let childPushesStaleValue = CorpusCase(
    name: "child-pushes-stale-value",
    summary: "a child reads a list, the parent appends to it, then the child saves its stale list on top: the parent's append is lost",
    kind: .lostUpdate,
    fix: "do the read-modify-write in one block on the parent (root.performAndWait) instead of in the child",
    badOrder: "the tagger reads the tags (through the root) before the root's append",
    plainHitRate: "0/200"
) { fixed, order in
    let stack = try CorpusStack()
    defer { stack.destroy() }
    let id = try stack.seed(["article"]) { $0.tags = "news" }[0]
    let root = stack.privateContext("root")
    let tagger = stack.child(of: root, "tagger")
    @Sendable func append(_ tag: String, in context: ManagedObjectContext) {
        let item = context.object(with: id) as! Item
        item.tags = (item.tags ?? "") + "," + tag
    }
    tagger.perform {
        stack.saveHistory()
        if fixed {
            root.performAndWait {
                append("swift", in: root)
                try? root.save()
            }
            return
        }
        let item = tagger.object(with: id) as! Item
        let tags = item.tags ?? ""  // read through the root
        order.reached("read")
        order.wait("root-saved")
        item.tags = tags + ",swift"
        try? tagger.save()
        root.perform { try? root.save() }
    }
    order.wait("read")
    root.performAndWait {
        append("featured", in: root)
        try? root.save()
    }
    order.reached("root-saved")
    settle([tagger, root])
    let tags = try stack.stored { c in (try c.existingObject(with: id) as! Item).tags } ?? ""
    try CorpusCheck.that(tags.contains("swift") && tags.contains("featured"), "the tags are '\(tags)': an append was lost")
}

/// Two like buttons, each in its own child of the root context, increment a counter
/// (read through the root, add one, save into the root). When both read before either
/// saves, one increment is lost. The fix increments on the root, in one block.
let counterIncrementedInTwoChildren = CorpusCase(
    name: "counter-incremented-in-two-children",
    summary: "two child contexts read-modify-write one counter: when both read before either saves, one increment is lost",
    kind: .lostUpdate,
    fix: "increment on the root context in one block (root.performAndWait), so increments are serialized",
    badOrder: "the second button reads the counter before the first one's increment reaches the root",
    plainHitRate: "0/200"
) { fixed, order in
    let stack = try CorpusStack()
    defer { stack.destroy() }
    let root = stack.privateContext("root")
    let id: ManagedObjectID = try root.performAndWait {
        let counter = Counter(context: root)
        counter.name = "likes"
        try root.save()
        return counter.objectID
    }
    let first = stack.child(of: root, "like-button-1"), second = stack.child(of: root, "like-button-2")
    @Sendable func like(_ context: ManagedObjectContext, readStep: String, waitStep: String, savedStep: String) {
        if fixed {
            root.performAndWait { (root.object(with: id) as! Counter).value! += 1 }
            return
        }
        let counter = context.object(with: id) as! Counter
        let value = counter.value ?? 0  // read through the root
        order.reached(readStep)
        order.wait(waitStep)
        counter.value = value + 1
        try? context.save()
        order.reached(savedStep)
    }
    second.perform {
        stack.saveHistory()
        like(second, readStep: "second-read", waitStep: "first-read", savedStep: "second-saved")
    }
    first.performAndWait { like(first, readStep: "first-read", waitStep: "second-read", savedStep: "first-saved") }
    settle([second, first])
    try root.performAndWait { try root.save() }
    let value = try stack.stored { c in (try c.existingObject(with: id) as! Counter).value }
    try CorpusCheck.that(value == 2, "two likes, but the counter is \(value.map { "\($0)" } ?? "nil")")
}

/// "Clear completed" runs in a child of the root context: it fetches the done items
/// (through the root) and deletes them, then saves up the chain. Meanwhile the user
/// unchecks one on the root. When the cleaner fetches before the uncheck, it deletes the
/// item the user just unchecked. The fix fetches and deletes on the root, in one block.
let clearCompletedDeletesUnchecked = CorpusCase(
    name: "clear-completed-deletes-unchecked-item",
    summary: "a cleaner fetches the done items, the user unchecks one, then the cleaner deletes what it fetched: the unchecked item is deleted",
    kind: .lostUpdate,
    fix: "fetch and delete on the root context in one block (root.performAndWait), atomic with the user's edits",
    badOrder: "the cleaner fetches the done items before the user's uncheck and deletes them after it",
    plainHitRate: "0/200"
) { fixed, order in
    let stack = try CorpusStack()
    defer { stack.destroy() }
    let ids = try stack.seed(["milk", "eggs"]) { $0.done = true }
    let root = stack.privateContext("root")
    let cleaner = stack.child(of: root, "cleaner")
    let completed = FetchRequest<Item>(predicate: \Item.done == true)
    cleaner.perform {
        stack.saveHistory()
        if fixed {
            root.performAndWait {
                for item in (try? root.fetch(completed)).map(Array.init) ?? [] { root.delete(item) }
                try? root.save()
            }
            return
        }
        let done = (try? cleaner.fetch(completed)).map(Array.init) ?? []  // read through the root
        order.reached("fetched")
        order.wait("unchecked")
        for item in done { cleaner.delete(item) }
        try? cleaner.save()
        root.perform { try? root.save() }
    }
    order.wait("fetched")
    let unchecked = Shared(false)
    root.performAndWait {  // the user unchecks "milk" (if the cleanup has not removed it yet)
        guard let milk = try? root.existingObject(with: ids[0]) as? Item else { return }
        milk.done = false
        try? root.save()
        unchecked.set(true)
    }
    order.reached("unchecked")
    settle([cleaner, root])
    let left = try stack.stored { c in try c.fetch(FetchRequest<Item>()).compactMap(\.title) }
    try CorpusCheck.that(!left.contains("eggs"), "the completed item 'eggs' was not cleared")
    try CorpusCheck.that(!unchecked.value || left == ["milk"], "the user unchecked 'milk' before the cleanup deleted it, but the store holds \(left)")
}
