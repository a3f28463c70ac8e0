import CtxdebugHelpers
import Foundation
import GRDB

/// Another process's change of one object, as remote-change-unmerged knows it.
struct RemoteChange: Sendable {
    /// The row's version (`Z_OPT`) after the change; `Int64.max` when it deleted the row.
    let version: Int64
    let transaction: Int64
    let changeType: PersistentHistoryChangeType
    let author: String?
    let processID: String?
}

extension HistoryCoordination {
    /// On the watcher's thread, while remote-change-unmerged is on: the objects other
    /// processes changed in the transactions after `after`, with the row versions they
    /// left; then the process's save count moves, so each object's next read looks.
    func recordRemoteChanges(_ store: SQLiteStore, after: Int64) {
        let storeID = store.identity.uuid
        let boundary = PersistentHistoryBoundary.token(PersistentHistoryToken(storeIdentifier: storeID, transactionNumber: after))
        guard let transactions = try? store.fetchHistory(after: boundary, withChanges: true, checkingToken: false) else { return }
        var found: [ManagedObjectID: RemoteChange] = [:]
        for t in transactions where !OwnTransactions.contains(storeID, t.transactionNumber) {
            for c in t.changes ?? [] {
                let version = c.changeType == .delete ? Int64.max : ((try? store.rowVersion(c.changedObjectID)) ?? nil) ?? Int64.max
                found[c.changedObjectID] = RemoteChange(
                    version: version, transaction: t.transactionNumber, changeType: c.changeType, author: t.author, processID: t.processID)
            }
        }
        guard !found.isEmpty else { return }
        remoteChanges.withLock { r in
            if r.count + found.count > 200_000 { r = [:] }
            r.merge(found) { $1 }
        }
        Diagnostics.countSave()
    }
}

extension SQLiteStore {
    /// The row's `Z_OPT`, nil when the row is gone.
    func rowVersion(_ id: ManagedObjectID) throws(ManagedContextError) -> Int64? {
        guard let pk = id.primaryKey else { return nil }
        return try historyRead("read a row's version") { db in
            try Int64.fetchOne(db, sql: "SELECT Z_OPT FROM \(id.entity.tableName) WHERE Z_PK = ?", arguments: [pk])
        }
    }
}

extension ManagedObjectContext {
    /// remote-change-unmerged: `o`, registered in this context on the coordinator, shows
    /// values older than a change another process made of its row (known from the store's
    /// history when the remote-change notification came), and no merge brought it in.
    /// A merge of the transaction's `objectIDNotification()` refreshes the object, so
    /// its version is the new one and nothing is reported. Called from the same reads as
    /// missing-merge (an attribute read, a fetch that finds the object registered).
    func diagnoseRemoteChangeUnmerged(_ o: ManagedObject, operation: String, attribute: String?) {
        guard Diagnostics.isOn(.remoteChangeUnmerged), case .coordinator(let coordinator) = parentStore,
            !o.insertedFlag, !o.isFaultFlag, let old = o.snapshot,
            let remote = coordinator.history.remoteChanges.withLock({ $0[o.objectID] }), remote.version > old.version,
            RemoteChangeReports.first(context: number, id: o.objectID, transaction: remote.transaction)
        else { return }
        let what = remote.changeType == .delete ? "deleted its row" : "saved version \(remote.version) of its row"
        var headline = "\(debugName) reads \(o.entity.name) \(o.objectID) at version \(old.version), but another process"
        headline += " (\(remote.processID ?? "unknown")\(remote.author.map { ", author \($0)" } ?? "")) \(what) in history transaction \(remote.transaction),"
        headline += " and that history was not merged into this context: it shows the old values."
        var description = Diagnostics.describe(
            o, operation: operation,
            hint: "on NSPersistentStoreRemoteChange, fetch the history after your last token (NSPersistentHistoryChangeRequest.fetchHistory(after:)) and call mergeChanges(fromContextDidSave: transaction.objectIDNotification()) on this context's queue")
        description.attribute = attribute
        Diagnostics.report(.remoteChangeUnmerged, description, headline)
    }
}

/// Each (context, object, transaction) is reported once.
enum RemoteChangeReports {
    private struct Key: Hashable {
        let context: UInt32
        let id: ManagedObjectID
        let transaction: Int64
    }
    private static let reported = LockedValue<Set<Key>>([])

    static func first(context: UInt32, id: ManagedObjectID, transaction: Int64) -> Bool {
        reported.withLock { r in
            if r.count > 100_000 { r = [] }
            return r.insert(Key(context: context, id: id, transaction: transaction)).inserted
        }
    }
}
