@_spi(Runtime) import ConcurrencyDebug
import Foundation
import Synchronization

/// A stand-in for a managed object: confined to a queue, described like one.
final class FakeItem: AccessDescribing, @unchecked Sendable {
    // @unchecked Sendable: tests send it across queues on purpose, to make
    // violations; `title` is only touched through the checked accessor.
    let owner: QueueIdentity
    let contextName: String
    private var storage = "untitled"

    init(owner: QueueIdentity, contextName: String = "viewContext") {
        self.owner = owner
        self.contextName = contextName
    }

    var title: String {
        get {
            ConcurrencyDebug.check(
                self, owner: owner,
                AccessEvent(operation: .get, owner: owner, context: 3, subject: 1, member: 0, instance: 7))
            return storage
        }
        set {
            ConcurrencyDebug.check(
                self, owner: owner,
                AccessEvent(operation: .set, owner: owner, context: 3, subject: 1, member: 0, instance: 7))
            storage = newValue
        }
    }

    func describe(_ event: AccessEvent) -> AccessDescription {
        AccessDescription(
            operation: event.operation.description, entity: "Item", attribute: "title",
            objectID: "x-coredata://TEST/Item/p7", contextName: contextName, ownerQueueLabel: owner.label,
            fixHint: "wrap the access in `context.perform { }`, or pass the objectID and use `object(with:)` in the other context")
    }
}

/// The line of the only line of `file` that contains `marker`.
func line(of marker: String, in file: String = #filePath) -> Int {
    let lines = (try? String(contentsOfFile: file, encoding: .utf8))?.components(separatedBy: "\n") ?? []
    let found = lines.indices.filter { lines[$0].contains(marker) && !lines[$0].contains("line(of:") }
    precondition(found.count == 1, "marker \(marker) must be on exactly one line of \(file), found \(found.count)")
    return found[0] + 1
}

/// True when `text` holds "<fileName>:<line>" as a location (followed by ':' or the end of a word).
func containsLocation(_ text: String, fileName: String, line: Int) -> Bool {
    let needle = "\(fileName):\(line)"
    var rest = text[...]
    while let range = rest.range(of: needle) {
        let after = rest[range.upperBound...].first
        if after == nil || after == ":" || after == "\n" || after == " " { return true }
        rest = rest[range.upperBound...]
    }
    return false
}

func utf8(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

func occurrences(of needle: String, in text: String) -> Int {
    text.components(separatedBy: needle).count - 1
}

/// A fresh path under the temporary directory.
func temporaryPath(_ name: String) -> String {
    let directory = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    return "\(directory)/ctxdebug-tests-\(getpid())-\(UUID().uuidString.prefix(8))-\(name)"
}

/// A handler that keeps what it is given.
final class CollectingHandler: ViolationHandler {
    let seen = Mutex<[Violation]>([])
    func handle(_ violation: Violation) { seen.withLock { $0.append(violation) } }
    var violations: [Violation] { seen.withLock { $0 } }
}

/// Sends this process's stderr (fd 2) to a file: for output written at exit, which an
/// exit test's `standardErrorContent` does not capture.
func redirectStandardError(to path: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    precondition(fd >= 0, "cannot open \(path)")
    dup2(fd, 2)
    close(fd)
}

/// Runs `body` as a perform block of `owner` runs it: through the runtime's one door
/// into a queue, so the thread's current owner is `owner` and its chain holds it.
func runAs<T, E: Error>(_ owner: QueueIdentity, _ body: () throws(E) -> T) throws(E) -> T {
    try ConcurrencyDebug.entering(owner, dispatched: false, describedBy: {
        AccessDescription(operation: "perform", ownerQueueLabel: owner.label, fixHint: "")
    }, body)
}
