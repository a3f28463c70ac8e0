import Dispatch
import Foundation
import ManagedContext

/// Timed waits and queue-guarded state, as apps write them. A timeout that "never
/// happens" in a plain run is one order among others under explore (virtual time).
enum WaitCases {
    static let all: [AppCase] = [
        AppCase(
            name: "semaphore-timeout-ignored",
            summary: "the main thread waits half a second for an import with semaphore.wait(timeout:) and reads on whatever the wait returned",
            run: { semaphoreTimeout(retries: false) }),
        AppCase(
            name: "semaphore-timeout-ignored-fixed",
            summary: "a timed-out wait waits again",
            run: { semaphoreTimeout(retries: true) }),
        AppCase(
            name: "group-timeout-ignored",
            summary: "a DispatchGroup of two imports is waited for with wait(timeout:), whose result is dropped",
            run: { groupTimeout(retries: false) }),
        AppCase(
            name: "group-timeout-ignored-fixed",
            summary: "the group is waited for until it is empty",
            run: { groupTimeout(retries: true) }),
        AppCase(
            name: "sync-check-then-insert",
            summary: "two workers check a serial queue's set of imported keys, then claim the key in a second sync, then insert",
            run: { checkThenInsert(oneSync: false) }),
        AppCase(
            name: "sync-check-then-insert-fixed",
            summary: "the check and the claim are one sync",
            run: { checkThenInsert(oneSync: true) }),
        AppCase(
            name: "lock-check-then-insert",
            summary: "two workers check an NSLock-guarded set of imported keys, import outside the lock, then mark the key",
            run: { lockedImport(holdsLockAcrossImport: false) }),
        AppCase(
            name: "lock-check-then-insert-fixed",
            summary: "the lock is held across the check, the import and the mark (the other worker blocks on it: an uncontrolled wait)",
            run: { lockedImport(holdsLockAcrossImport: true) }),
        AppCase(
            name: "probe-pipe-never-written",
            summary: "not a bug of the corpus: a worker reads a pipe nobody writes, while the main thread waits for it (a hang with every unit's stack)",
            run: { pipeNeverWritten() }),
        AppCase(
            name: "probe-lock-across-point",
            summary: "not a bug of the corpus: one worker holds an NSLock across a save, the other takes it (an uncontrolled wait that explore goes through)",
            run: { lockAcrossPoint() }),
    ]

    static func lockAcrossPoint() -> Never {
        let stack = AppStack()
        let lock = NSLock()
        let group = DispatchGroup()
        for name in ["a", "b"] {
            DispatchQueue.global().async(group: group) {
                let importer = stack.newBackgroundContext(name)
                lock.lock()
                importer.performAndWait {
                    Note(context: importer).title = "note \(name)"
                    try! importer.save()
                }
                lock.unlock()
            }
        }
        group.wait()
        let count = stack.noteCount()
        finish(count == 2, "\(count) notes saved of 2", stack: stack)
    }

    /// Keys already imported, guarded by a lock of the app's (a wait explore does not model).
    final class LockedKeys: @unchecked Sendable {  // `keys` is touched under `lock` only
        let lock = NSLock()
        var keys: Set<String> = []
    }

    static func lockedImport(holdsLockAcrossImport: Bool) -> Never {
        let stack = AppStack()
        stack.seedHistory()
        let imported = LockedKeys()
        let group = DispatchGroup()
        for name in ["a", "b"] {
            DispatchQueue.global().async(group: group) {
                let importer = stack.newBackgroundContext(name)
                if name == "b" { importer.performAndWait { AppStack.browse(importer, times: 12) } }  // b's screen refreshes first
                func importKey() {
                    importer.performAndWait {
                        Note(context: importer).title = "remote-1"
                        try! importer.save()
                    }
                }
                if holdsLockAcrossImport {
                    imported.lock.lock()
                    if !imported.keys.contains("remote-1") {
                        importKey()
                        imported.keys.insert("remote-1")
                    }
                    imported.lock.unlock()
                } else {
                    imported.lock.lock()
                    let seen = imported.keys.contains("remote-1")
                    imported.lock.unlock()
                    guard !seen else { return }
                    importKey()
                    imported.lock.lock()
                    imported.keys.insert("remote-1")
                    imported.lock.unlock()
                }
            }
        }
        group.notify(queue: .main) {
            let count = stack.stored { context in try context.fetch(FetchRequest<Note>()).filter { $0.title == "remote-1" }.count }
            finish(count == 1, "remote-1 was imported \(count) times", stack: stack)
        }
        dispatchMain()
    }

    static func pipeNeverWritten() -> Never {
        let stack = AppStack()
        var ends: [Int32] = [0, 0]
        _ = pipe(&ends)
        let reader = ends[0]
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            var byte: UInt8 = 0
            _ = read(reader, &byte, 1)  // nobody writes: blocked in the kernel for good
            done.signal()
        }
        done.wait()
        finish(true, "", stack: stack)
    }

    static func semaphoreTimeout(retries: Bool) -> Never {
        let stack = AppStack()
        let done = DispatchSemaphore(value: 0)
        let importer = stack.newBackgroundContext("importer")
        importer.perform {
            HopCases.insertNotes(2, in: importer)
            try! importer.save()
            done.signal()
        }
        if retries {
            while done.wait(timeout: .now() + 0.5) == .timedOut {}
        } else {
            _ = done.wait(timeout: .now() + 0.5)
        }
        let count = stack.noteCount()
        finish(count == 2, "read \(count) notes after waiting for the import of 2", stack: stack)
    }

    static func groupTimeout(retries: Bool) -> Never {
        let stack = AppStack()
        let group = DispatchGroup()
        for name in ["a", "b"] {
            group.enter()
            let importer = stack.newBackgroundContext(name)
            importer.perform {
                HopCases.insertNotes(1, in: importer)
                try! importer.save()
                group.leave()
            }
        }
        if retries {
            group.wait()
        } else {
            _ = group.wait(timeout: .now() + 0.5)
        }
        let count = stack.noteCount()
        finish(count == 2, "read \(count) notes after the group of 2 imports", stack: stack)
    }

    /// Keys already imported, guarded by a serial queue, as a sync engine keeps them.
    final class ImportedKeys: @unchecked Sendable {  // `keys` is touched on `queue` only
        let queue = DispatchQueue(label: "imported-keys")
        var keys: Set<String> = []
    }

    static func checkThenInsert(oneSync: Bool) -> Never {
        let stack = AppStack()
        let imported = ImportedKeys()
        let group = DispatchGroup()
        for name in ["a", "b"] {
            DispatchQueue.global().async(group: group) {
                let claimed: Bool
                if oneSync {
                    claimed = imported.queue.sync { imported.keys.insert("remote-1").inserted }
                } else {
                    let seen = imported.queue.sync { imported.keys.contains("remote-1") }
                    if !seen { imported.queue.sync { _ = imported.keys.insert("remote-1") } }
                    claimed = !seen
                }
                guard claimed else { return }
                let importer = stack.newBackgroundContext(name)
                importer.performAndWait {
                    Note(context: importer).title = "remote-1"
                    try! importer.save()
                }
            }
        }
        group.notify(queue: .main) {
            let count = stack.stored { context in try context.fetch(FetchRequest<Note>()).filter { $0.title == "remote-1" }.count }
            finish(count == 1, "remote-1 was imported \(count) times", stack: stack)
        }
        dispatchMain()
    }
}
