import ManagedContext

/// The shape of the merge-policy cases: an editor context (the user) has a pending edit
/// of an item; a sync context loaded the same item at the same version, and its update
/// of it is queued behind the import it is busy with. The user taps Save right then, on
/// the calling thread. Each policy's outcome depends on which save commits first, and
/// the app was written for the order it always saw: the user's first.
struct TwoSaves {
    var user: MergePolicy
    var sync: MergePolicy
    var seed: (Item) -> Void = { _ in }
    var userEdit: (Item) -> Void
    var syncEdit: @Sendable (Item) -> Void
    /// How the editor saves: by default it ignores a failed save (the edit stays pending).
    var userSave: (ManagedObjectContext, ManagedObjectID) -> Void = { editor, _ in try? editor.save() }
    /// The stored item's (title, price, hidden) after both saves.
    var check: (_ title: String?, _ price: Double?, _ hidden: Bool?) throws -> Void

    func run(_ order: BadOrder) throws {
        let stack = try CorpusStack()
        defer { stack.destroy() }
        let id = try stack.seed(["draft"]) { seed($0) }[0]
        let editor = stack.privateContext("editor", policy: user)
        let sync = stack.privateContext("sync", policy: sync)
        // Both load the item at version 1; the user's edit is pending in the editor.
        let synced = sync.performAndWait {
            let item = sync.object(with: id) as! Item
            _ = item.title
            return Held(item)
        }
        editor.performAndWait { userEdit(editor.object(with: id) as! Item) }
        let syncEdit = self.syncEdit
        sync.perform {
            importBatch(into: sync)
            syncEdit(synced.object)
            try? sync.save()
            order.reached("sync-saved")
        }
        editor.performAndWait {  // Save
            order.wait("sync-saved")
            userSave(editor, id)
        }
        settle([sync, editor])
        let stored = try stack.stored { c in
            let item = try c.existingObject(with: id) as! Item
            return (item.title, item.price, item.hidden)
        }
        try check(stored.0, stored.1, stored.2)
    }
}

let policyErrorSwallowed = CorpusCase(
    name: "policy-error-save-fails-silently",
    summary: "the editor keeps the default error policy and ignores a failed save: when the sync commits first, the user's rename is never saved",
    kind: .mergePolicy,
    fix: "the editor uses mergeByPropertyObjectTrump (its changed properties win, the sync's others are kept)",
    badOrder: "the sync's block (its import, then its update) commits before the user's save",
    plainHitRate: "1/200"
) { fixed, order in
    try TwoSaves(
        user: fixed ? .mergeByPropertyObjectTrump : .error, sync: .mergeByPropertyObjectTrump,
        seed: { $0.price = 10 },
        userEdit: { $0.title = "renamed by user" },
        syncEdit: { $0.price = 12 },
        check: { title, price, _ in
            try CorpusCheck.that(title == "renamed by user", "the user's rename was lost (title \(title ?? "nil"))")
            try CorpusCheck.that(price == 12, "the sync's price was lost (price \(price.map { "\($0)" } ?? "nil"))")
        }
    ).run(order)
}

let policyObjectTrumpStaleForm = CorpusCase(
    name: "policy-object-trump-stale-form",
    summary: "the edit form writes back every field under mergeByPropertyObjectTrump: when moderation commits first, the form's stale hidden=false un-hides the item",
    kind: .mergePolicy,
    fix: "the editor uses mergeByPropertyStoreTrump, so a field changed in the store since the form loaded keeps the store's value",
    badOrder: "the sync's block (its import, then moderation's hide) commits before the form's save",
    plainHitRate: "2/200"
) { fixed, order in
    try TwoSaves(
        user: fixed ? .mergeByPropertyStoreTrump : .mergeByPropertyObjectTrump, sync: .mergeByPropertyObjectTrump,
        userEdit: { item in
            // The form sets every field from its controls, changed or not.
            let wasHidden = item.hidden
            item.title = "renamed by user"
            item.hidden = wasHidden
        },
        syncEdit: { $0.hidden = true },  // moderation hides the item
        check: { title, _, hidden in
            try CorpusCheck.that(hidden == true, "moderation's hide was undone by the form's stale value")
            try CorpusCheck.that(title == "renamed by user", "the user's rename was lost (title \(title ?? "nil"))")
        }
    ).run(order)
}

let policyStoreTrumpFirstWins = CorpusCase(
    name: "policy-store-trump-first-writer-wins",
    summary: "both contexts use mergeByPropertyStoreTrump, so the first save wins a property: when the sync's stale title commits first, the user's rename is dropped",
    kind: .mergePolicy,
    fix: "the editor uses mergeByPropertyObjectTrump (the user's change wins whatever the order)",
    badOrder: "the sync's block (its import, then its stale title) commits before the user's save",
    plainHitRate: "1/200"
) { fixed, order in
    try TwoSaves(
        user: fixed ? .mergeByPropertyObjectTrump : .mergeByPropertyStoreTrump, sync: .mergeByPropertyStoreTrump,
        userEdit: { $0.title = "renamed by user" },
        syncEdit: { $0.title = "server copy" },
        check: { title, _, _ in
            try CorpusCheck.that(title == "renamed by user", "the user's rename lost to the sync's stale copy (title \(title ?? "nil"))")
        }
    ).run(order)
}

let policyOverwriteClobbers = CorpusCase(
    name: "policy-overwrite-clobbers-other-fields",
    summary: "the editor saves under the overwrite policy, which writes every field: when the sync commits first, its new price is reverted",
    kind: .mergePolicy,
    fix: "the editor uses mergeByPropertyObjectTrump (only its changed properties win)",
    badOrder: "the sync's block (its import, then its price) commits before the user's save",
    plainHitRate: "0/200"
) { fixed, order in
    try TwoSaves(
        user: fixed ? .mergeByPropertyObjectTrump : .overwrite, sync: .mergeByPropertyObjectTrump,
        seed: { $0.price = 10 },
        userEdit: { $0.title = "renamed by user" },
        syncEdit: { $0.price = 12 },
        check: { title, price, _ in
            try CorpusCheck.that(price == 12, "the sync's price was overwritten (price \(price.map { "\($0)" } ?? "nil"))")
            try CorpusCheck.that(title == "renamed by user", "the user's rename was lost (title \(title ?? "nil"))")
        }
    ).run(order)
}

let policyRollbackDropsEdit = CorpusCase(
    name: "policy-rollback-drops-user-edit",
    summary: "the editor saves under the rollback policy: when the sync commits first, the conflict silently discards the user's rename",
    kind: .mergePolicy,
    fix: "the editor uses mergeByPropertyObjectTrump",
    badOrder: "the sync's block (its import, then its price) commits before the user's save",
    plainHitRate: "1/200"
) { fixed, order in
    try TwoSaves(
        user: fixed ? .mergeByPropertyObjectTrump : .rollback, sync: .mergeByPropertyObjectTrump,
        seed: { $0.price = 10 },
        userEdit: { $0.title = "renamed by user" },
        syncEdit: { $0.price = 12 },
        check: { title, price, _ in
            try CorpusCheck.that(title == "renamed by user", "the user's rename was rolled back (title \(title ?? "nil"))")
            try CorpusCheck.that(price == 12, "the sync's price was lost (price \(price.map { "\($0)" } ?? "nil"))")
        }
    ).run(order)
}

let policyErrorRetryRefreshesAwayEdit = CorpusCase(
    name: "policy-error-retry-refreshes-away-edit",
    summary: "on a merge conflict the editor refreshes the item with mergeChanges: false and saves again: the retry saves nothing of the user's rename",
    kind: .mergePolicy,
    fix: "refresh(_:mergeChanges: true) before the retry, which keeps the unsaved rename on top of the store's values",
    badOrder: "the sync's block (its import, then its update) commits before the user's save",
    plainHitRate: "0/200"
) { fixed, order in
    try TwoSaves(
        user: .error, sync: .mergeByPropertyObjectTrump,
        seed: { $0.price = 10 },
        userEdit: { $0.title = "renamed by user" },
        syncEdit: { $0.price = 12 },
        userSave: { editor, id in
            do {
                try editor.save()
            } catch {
                // Conflict: reload the item and try again.
                editor.refresh(editor.object(with: id), mergeChanges: fixed)
                try? editor.save()
            }
        },
        check: { title, price, _ in
            try CorpusCheck.that(title == "renamed by user", "the retry lost the user's rename (title \(title ?? "nil"))")
            try CorpusCheck.that(price == 12, "the sync's price was lost (price \(price.map { "\($0)" } ?? "nil"))")
        }
    ).run(order)
}
