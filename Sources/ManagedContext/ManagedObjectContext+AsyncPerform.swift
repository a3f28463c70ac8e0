@_spi(Runtime) import ConcurrencyDebug
import struct ScheduleControl.ScheduleDoor

extension ManagedObjectContext {
    /// When a block given to the async `perform(schedule:_:)` runs, as Core Data's
    /// `NSManagedObjectContext.ScheduledTaskType`.
    public enum ScheduledTaskType: Sendable, Hashable {
        /// Runs at once when the caller already runs on the context's queue (a
        /// main-queue context called from the main actor, or inside one of the
        /// context's own blocks); otherwise enqueued.
        case immediate
        /// Always appended to the context's queue, after the blocks already on it,
        /// as `perform(_:)` does.
        case enqueued
    }

    /// Runs `block` on the context's queue and returns its value, as Core Data's
    /// `perform(schedule:_:) async rethrows -> T`: a block that cannot throw needs no
    /// `try` (`await context.perform { ... }`); a throwing one rethrows its error.
    /// It runs on the caller's executor (`nonisolated(nonsending)`), so `.immediate`
    /// sees the main actor's caller on the main queue.
    nonisolated(nonsending) public func perform<T: Sendable, E: Error>(
        schedule: ScheduledTaskType = .immediate, _ block: @escaping @Sendable () throws(E) -> T
    ) async throws(E) -> T {
        if schedule == .immediate, runsOnOwnQueueNow {
            do {
                return try performAndWait { try block() }
            } catch {
                throw error as! E  // performAndWait rethrows only what the block threw
            }
        }
        if let explorer, explorer.controlsCaller {
            return try await explorer.performAwaited(block, on: logicalQueue) { [self] in performWork($0) }
        }
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            perform {
                continuation.resume(returning: Result { () throws(E) -> T in try block() })
            }
        }
        return try result.get()
    }

    /// True when the caller runs on this context's queue now: in one of its blocks,
    /// or on the main queue for a main-queue context.
    private var runsOnOwnQueueNow: Bool {
        if ConcurrencyDebug.currentOwner == queueIdentity { return true }
        if HeldQueues.contains(queueIdentity) { return true }
        return concurrencyType == .mainQueue && ConcurrencyDebug.isOnMainQueue
    }
}
