@_spi(Runtime) import ConcurrencyDebug
import CoreData
import Foundation
import TestSupport
import Testing

/// Two processes on one WAL store, as an app and its extension share one (Apple's
/// "Consuming relevant store changes"): the writer is a real child process
/// (`ctxdebug-history-writer`); this process observes `NSPersistentStoreRemoteChange`
/// (Apple: "A notification that posts after another process writes to a persistent
/// store"; `NSPersistentStoreRemoteChangeNotificationPostOptionKey`: "posts a remote change
/// notification for every write to the store, including writes by other processes"),
/// fetches the history after its last token and merges each transaction's
/// `objectIDNotification()` into its context.
@Suite struct RemoteChangeTests {
    /// Acceptance: the reader's view context shows the writer's change after the
    /// remote-change notification and a history merge, with the transaction's author.
    @Test func theViewContextShowsTheOtherProcesssChangeAfterAHistoryMerge() throws {
        let dir = TempDirectory("remote-change")
        let reader = try RemoteChangeScenario(dir)
        let view = reader.container.viewContext
        let note = try view.performAndWait { try view.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).first! }
        #expect(view.performAndWait { note.value(forKey: "title") as? String } == "draft")

        let token = try reader.runWriter(from: "draft", to: "final", author: "widget")
        #expect(token.transactionNumber == reader.seedToken.transactionNumber + 1)
        // Before any merge the view context still shows what it loaded: nothing merges by itself.
        #expect(view.performAndWait { note.value(forKey: "title") as? String } == "draft")

        let transactions = try reader.mergeHistory(into: view)
        #expect(transactions.map(\.author) == ["widget"])
        #expect(transactions.map(\.processID) == ["ctxdebug-history-writer"])
        #expect(transactions.first?.changes?.map(\.changeType) == [.update])
        #expect(transactions.first?.changes?.first?.updatedProperties?.map(\.name) == ["title"])
        #expect(view.performAndWait { note.value(forKey: "title") as? String } == "final")
    }

    /// A change this process makes is posted too ("every write to the store").
    @Test func thisProcesssOwnWriteIsPostedToo() throws {
        let dir = TempDirectory("remote-change-own")
        let reader = try RemoteChangeScenario(dir)
        let context = reader.container.newBackgroundContext()
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Note", into: context).setValue("own", forKey: "title")
            try context.save()
        }
        let token = try #require(reader.waitForNotification(after: reader.seedToken.transactionNumber))
        #expect(token.transactionNumber == reader.seedToken.transactionNumber + 1)
    }

    /// remote-change-unmerged fires on a reader that reads the object another process
    /// changed without merging that history, and is silent on one that merged it.
    @Test(arguments: [false, true])
    func remoteChangeUnmerged(merging: Bool) async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [merging = merging as Bool] in
            ConcurrencyDebug.Variable.set([.concurrency: "1", .onViolation: "log", .diagnostics: "default,remote-change-unmerged"])
            runRemoteChangeUnmergedScenario(merging: merging)
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        if merging {
            #expect(!stderr.contains("BUG DETECTED"), "\(stderr)")
        } else {
            #expect(stderr.contains("BUG DETECTED"), "\(stderr)")
            #expect(stderr.contains("remote-change-unmerged"), "\(stderr)")
            #expect(stderr.contains("author widget"), "\(stderr)")
            #expect(stderr.contains("objectIDNotification()"), "a fix hint:\n\(stderr)")
        }
    }
}

/// In the exit test's child: a reader context loads the note, the writer process renames
/// it, the notification comes; the reader merges the history (or not) and reads.
func runRemoteChangeUnmergedScenario(merging: Bool) {
    let dir = TempDirectory("remote-change-unmerged")
    let reader = try! RemoteChangeScenario(dir)
    let context = reader.container.newBackgroundContext()
    let note = try! context.performAndWait { try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).first! }
    _ = context.performAndWait { note.value(forKey: "title") }
    _ = try! reader.runWriter(from: "draft", to: "final", author: "widget")
    if merging { _ = try! reader.mergeHistory(into: context) }
    let title = context.performAndWait { note.value(forKey: "title") as? String }
    let kinds = Set(ConcurrencyDebug.recordedViolations.map(\.kind.rawValue))
    if merging {
        precondition(title == "final" && kinds.isEmpty, "merged: title \(title ?? "nil"), recorded \(kinds.sorted())")
    } else {
        precondition(title == "draft" && kinds == ["remote-change-unmerged"], "unmerged: title \(title ?? "nil"), recorded \(kinds.sorted())")
    }
}

/// The reading process: a container on the store with history and remote-change
/// notifications, one note "draft" saved, and the notifications it receives.
final class RemoteChangeScenario: @unchecked Sendable {
    let dir: TempDirectory
    let container: NSPersistentContainer
    let seedToken: NSPersistentHistoryToken
    private let tokens = TokenList()
    private let posted = DispatchSemaphore(value: 0)
    private var observer: (any NSObjectProtocol)?
    /// The last token whose history was merged (Apple's sample keeps it on disk).
    private var lastToken: NSPersistentHistoryToken?

    init(_ dir: TempDirectory) throws {
        self.dir = dir
        container = NSPersistentContainer(name: "Notes", managedObjectModel: historyNotesModel())
        let description = NSPersistentStoreDescription(url: dir.file("Shared.sqlite"))
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        let seed = container.newBackgroundContext()
        try seed.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Note", into: seed).setValue("draft", forKey: "title")
            try seed.save()
        }
        seedToken = container.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: nil)!
        lastToken = seedToken
        let tokens = self.tokens, posted = self.posted
        observer = NotificationCenter.default.addObserver(
            forName: .NSPersistentStoreRemoteChange, object: container.persistentStoreCoordinator, queue: nil
        ) { note in
            guard let token = note.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken,
                note.userInfo?[NSPersistentStoreURLKey] as? URL != nil
            else { return }
            tokens.append(token)
            posted.signal()
        }
    }

    deinit { observer.map(NotificationCenter.default.removeObserver) }

    /// Runs the writer process to its end, then waits for the notification of its write.
    func runWriter(from: String, to: String, author: String) throws -> NSPersistentHistoryToken {
        let writer = BuiltProducts.directory.appendingPathComponent("ctxdebug-history-writer").path
        let run = try ChildProcess(writer, ["--store", dir.file("Shared.sqlite").path, "--from", from, "--to", to, "--author", author]).wait(timeout: 120)
        guard run.status == 0, !run.signaled, let number = Int64(run.stdout.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") else {
            throw RemoteChangeFailure("the writer failed: \(run)")
        }
        guard let token = waitForNotification(after: number - 1) else {
            throw RemoteChangeFailure("no NSPersistentStoreRemoteChange for the writer's transaction \(number) (got \(tokens.all))")
        }
        return token
    }

    /// The first token posted past `number`; nil when none comes (the timeout only ends
    /// a failing test: the notification normally arrives within milliseconds).
    func waitForNotification(after number: Int64) -> NSPersistentHistoryToken? {
        while true {
            if let token = tokens.all.first(where: { $0.transactionNumber > number }) { return token }
            if posted.wait(timeout: .now() + 60) == .timedOut { return nil }
        }
    }

    /// Apple's flow: the history after the last token, each transaction merged into
    /// `context` through its `objectIDNotification()`, then the last token moves on.
    func mergeHistory(into context: NSManagedObjectContext) throws -> [NSPersistentHistoryTransaction] {
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: lastToken)
        let worker = container.newBackgroundContext()
        let result = try worker.performAndWait { try worker.execute(request) as? NSPersistentHistoryResult }
        let transactions = result?.result as? [NSPersistentHistoryTransaction] ?? []
        context.performAndWait {
            for transaction in transactions { context.mergeChanges(fromContextDidSave: transaction.objectIDNotification()) }
        }
        lastToken = transactions.last?.token ?? lastToken
        return transactions
    }
}

/// The tokens the notifications brought, in order (appended on the poster's thread).
final class TokenList: @unchecked Sendable {
    private let lock = NSLock()
    private var tokens: [NSPersistentHistoryToken] = []
    func append(_ token: NSPersistentHistoryToken) { lock.withLock { tokens.append(token) } }
    var all: [NSPersistentHistoryToken] { lock.withLock { tokens } }
}

struct RemoteChangeFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The model of `ctxdebug-history-writer` (Tests/HistoryWriter), the same in both processes.
func historyNotesModel() -> NSManagedObjectModel {
    let title = NSAttributeDescription()
    title.name = "title"
    title.attributeType = .stringAttributeType
    title.isOptional = true
    let note = NSEntityDescription()
    note.name = "Note"
    note.managedObjectClassName = "NSManagedObject"
    note.properties = [title]
    let model = NSManagedObjectModel()
    model.entities = [note]
    return model
}
