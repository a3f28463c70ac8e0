import CtxdebugHelpers
public import Foundation

extension PersistentStoreCoordinator {
    /// Core Data's `NSPersistentStoreRemoteChange`: posted, on a private thread, with the
    /// coordinator as its object, after a write to the store (by this process or
    /// another), when the store was added with `postsRemoteChangeNotifications`. Its
    /// `userInfo` holds the store's URL (`"storeURL"`), its UUID (`"NSStoreUUID"`) and,
    /// when history is recorded, the newest transaction's token (`"historyToken"`).
    public static let remoteChangeNotification = Notification.Name("NSPersistentStoreRemoteChangeNotification")
    public static let storeURLKey = "storeURL"
    public static let storeUUIDKey = "NSStoreUUID"
    public static let historyTokenKey = "historyToken"

    /// Core Data's `currentPersistentHistoryToken(fromStores:)`: the token of the store's
    /// newest transaction; nil when the store records no history (or has none yet).
    public func currentPersistentHistoryToken() -> PersistentHistoryToken? {
        guard let s = try? store(), let number = try? s.lastTransactionNumber() else { return nil }
        return PersistentHistoryToken(storeIdentifier: s.identity.uuid, transactionNumber: number)
    }

    /// Core Data's `NSPersistentHistoryChangeRequest.fetchHistory(after:)`: the
    /// transactions after `boundary`, oldest first, with their changes unless
    /// `withChanges` is false.
    public func fetchHistory(after boundary: PersistentHistoryBoundary, withChanges: Bool = true) throws(ManagedContextError) -> [PersistentHistoryTransaction] {
        try store().fetchHistory(after: boundary, withChanges: withChanges)
    }

    /// Core Data's `deleteHistory(before:)`: deletes the transactions up to and including
    /// the token's (before the date); returns how many went.
    @discardableResult
    public func deleteHistory(before boundary: PersistentHistoryBoundary) throws(ManagedContextError) -> Int {
        try store().deleteHistory(before: boundary)
    }

    /// Called once the store is open: adds the history tables and starts the watcher, as
    /// the options ask. A store that records history, opened without tracking, is opened
    /// read-only instead, as Core Data does ("Store opened without
    /// NSPersistentHistoryTrackingKey but previously had been opened with
    /// NSPersistentHistoryTrackingKey - Forcing into Read Only mode"): writes it did not
    /// record would leave a gap in the history that other processes read.
    func startHistory(_ store: SQLiteStore, options: StoreOptions) throws(ManagedContextError) -> SQLiteStore {
        var store = store
        do {
            if options.persistentHistoryTracking {
                try store.prepareHistory()
            } else if !store.isReadOnly, try store.historyRead("read the store's tables", { try store.hasHistoryTables($0) }) {
                FileHandle.standardError.write(Data(
                    "ctxdebug: Store opened without NSPersistentHistoryTrackingKey but previously had been opened with NSPersistentHistoryTrackingKey - Forcing into Read Only mode store at \(store.url.path)\n".utf8))
                let url = store.url
                store.close()
                store = try SQLiteStore(url: url, model: managedObjectModel, readOnly: true)
            }
        } catch {
            store.close()
            throw error
        }
        history.start(store, tracking: options.persistentHistoryTracking, posting: options.postsRemoteChangeNotifications, coordinator: self)
        return store
    }

    /// What a save through `context` records in the history, or nil when the store
    /// records none.
    func historyRecording(author: String?, contextName: String?) -> HistoryRecording? {
        history.recording(author: author, contextName: contextName)
    }
}

/// A coordinator's persistent history: whether its store records it, the watcher that
/// posts remote-change notifications, and what remote-change-unmerged knows of other
/// processes' changes.
final class HistoryCoordination: Sendable {
    private struct State {
        var store: SQLiteStore?
        var tracking = false
        var watcher: StoreFileWatcher?
        /// The newest transaction a notification was posted for (or seen at start).
        var lastSeen: Int64 = 0
    }
    private let state = LockedValue(State())
    /// Changes other processes made, by objectID, for remote-change-unmerged.
    let remoteChanges = LockedValue<[ManagedObjectID: RemoteChange]>([:])

    /// The process's name and bundle identifier, as the transaction records them.
    static let processName = ProcessInfo.processInfo.processName
    static let bundleID = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName

    func start(_ store: SQLiteStore, tracking: Bool, posting: Bool, coordinator: PersistentStoreCoordinator) {
        stop()
        let last: Int64 = tracking ? ((try? store.lastTransactionNumber()) ?? 0) : 0
        var watcher: StoreFileWatcher?
        if posting {
            watcher = StoreFileWatcher(path: store.url.path) { [weak self, weak coordinator] in
                guard let self, let c = coordinator else { return true }
                return self.checkForChanges(coordinator: c)
            }
        }
        state.withLock { s in
            s = State(store: store, tracking: tracking, watcher: watcher, lastSeen: last)
        }
    }

    /// The coordinator is gone: its watcher's thread ends too.
    deinit { state.withLock { $0.watcher }?.stop() }

    func stop() {
        let old = state.withLock { s in
            let w = s.watcher
            s = State()
            return w
        }
        old?.stop()
    }

    func recording(author: String?, contextName: String?) -> HistoryRecording? {
        guard let store = state.withLock({ $0.tracking ? $0.store : nil }) else { return nil }
        let path = store.url.path
        return HistoryRecording(
            author: author, contextName: contextName, bundleID: Self.bundleID, processID: Self.processName,
            committed: { _ in StoreFileWatcher.signalCommit(path: path) })
    }

    /// On the watcher's thread: posts a remote-change notification when the store's
    /// newest transaction is newer than the last one posted; true when it found one.
    func checkForChanges(coordinator: PersistentStoreCoordinator) -> Bool {
        let (current, tracking, lastSeen) = state.withLock { s in (s.store, s.tracking, s.lastSeen) }
        guard let store = current else { return true }
        guard tracking, let newest = try? store.lastTransactionNumber(), newest > lastSeen else { return false }
        let isNewest = state.withLock { s in
            guard s.store === store, newest > s.lastSeen else { return false }
            s.lastSeen = newest
            return true
        }
        guard isNewest else { return true }
        if Diagnostics.isOn(.remoteChangeUnmerged) { recordRemoteChanges(store, after: lastSeen) }
        let token = PersistentHistoryToken(storeIdentifier: store.identity.uuid, transactionNumber: newest)
        NotificationCenter.default.post(
            name: PersistentStoreCoordinator.remoteChangeNotification, object: coordinator,
            userInfo: [
                PersistentStoreCoordinator.storeURLKey: store.url, PersistentStoreCoordinator.storeUUIDKey: store.identity.uuid,
                PersistentStoreCoordinator.historyTokenKey: token,
            ])
        return true
    }
}

/// The transactions this process wrote, by store: the others are another process's.
enum OwnTransactions {
    private static let numbers = LockedValue<[String: Set<Int64>]>([:])
    static func insert(_ store: String, _ number: Int64) {
        numbers.withLock { n in
            if n[store, default: []].count > 100_000 { n[store] = [] }
            n[store, default: []].insert(number)
        }
    }
    static func contains(_ store: String, _ number: Int64) -> Bool { numbers.withLock { $0[store]?.contains(number) ?? false } }
}
