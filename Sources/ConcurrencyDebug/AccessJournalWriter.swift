import CConcurrencyDebug
import CtxdebugHelpers
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What went wrong opening or reading a journal.
public struct AccessJournalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure; the raw value is the word reports use.
    public enum Code: String, Sendable {
        /// The file could not be opened, read or written.
        case cannotAccess = "cannot-access"
        /// The file does not start with a journal session header.
        case notAJournal = "not-a-journal"
        /// The journal was written by a newer format version.
        case unsupportedVersion = "unsupported-version"
    }

    /// What kind of failure.
    public var code: Code
    /// The journal file.
    public var path: String
    /// What went wrong, in words (the system's error for `cannotAccess`).
    public var message: String

    public var description: String { "\(path): \(message)" }
}

/// Writes the access journal: every event goes to the calling thread's own buffer
/// (no contention between threads), and a full buffer becomes one block, appended
/// to the file with a single write(2). `flush()` writes every thread's partial block;
/// the checker calls it at exit and before a trap. A thread's buffer is flushed
/// when the thread exits.
///
/// An access is staged without a lock and encoded in rounds of
/// `AccessJournalThreadBuffer.stagingCapacity` (see there). A crash loses only the events
/// still in the buffers: at most one block's worth per thread (`blockCapacity` bytes,
/// ~2,000-5,000 events) and the accesses staged but not yet encoded (at most 31).
public final class AccessJournalWriter: Sendable {
    /// The journal file, appended to.
    public let path: String
    /// The payload bytes of a block; a buffer is written out when it fills.
    public let blockCapacity: Int
    private let file: AccessJournalFile
    private let clock: AccessJournalClock
    private let pid: UInt32
    /// Tells this writer's thread buffers from those of a journal opened before.
    private let identity: UInt
    /// Every thread's buffer, for flush() and close(). Keyed by identity.
    private let buffers = LockedValue<[ObjectIdentifier: AccessJournalThreadBuffer]>([:])

    /// Room kept free for one event plus a thread name, two queue labels and an
    /// operation name.
    static let recordReserve = 64 + 3 * (AccessJournalFormat.maximumNameLength + 16) + 80

    /// Opens `path` for appending (creating it) and writes a session header.
    public init(path: String, blockCapacity: Int = 16 * 1024) throws(AccessJournalError) {
        self.path = path
        self.blockCapacity = max(1024, min(blockCapacity, AccessJournalFormat.maximumBlockBody / 2))
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw AccessJournalError(code: .cannotAccess, path: path, message: String(cString: strerror(errno)))
        }
        self.file = AccessJournalFile(fd: fd)
        self.clock = AccessJournalClock()
        self.pid = UInt32(truncatingIfNeeded: getpid())
        self.identity = writerSerial.add(1, ordering: .relaxed).newValue

        var header = [UInt8](repeating: 0, count: AccessJournalFormat.sessionHeaderSize)
        var wall = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        let wallNanos = UInt64(wall.tv_sec) &* 1_000_000_000 &+ UInt64(wall.tv_nsec)
        header.withUnsafeMutableBufferPointer { buffer in
            let writer = ByteWriter(base: buffer.baseAddress!, offset: 0)
            for (index, byte) in AccessJournalFormat.sessionMagic.enumerated() { buffer[index] = byte }
            writer.store(AccessJournalFormat.version, at: 8)
            writer.store(UInt16(AccessJournalFormat.sessionHeaderSize), at: 10)
            writer.store(pid, at: 12)
            writer.store(wallNanos, at: 16)
            let crc = AccessJournalFormat.crc32c(UnsafeRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[0..<24]))
            writer.store(crc, at: 24)
        }
        guard ctxdebug_write_all(fd, header, header.count) == 0 else {
            let message = String(cString: strerror(errno))
            Glibc.close(fd)
            throw AccessJournalError(code: .cannotAccess, path: path, message: message)
        }
    }

    /// Journals one access made by the calling thread.
    @inline(__always)
    public func record(_ event: AccessEvent, current: QueueIdentity, allowed: Bool) {
        let ticks = ctxdebug_ticks()
        if let raw = ctxdebug_access_log_buffer() {
            // The thread's pthread slot holds a reference until the thread exits: no retain.
            let buffer = Unmanaged<AccessJournalThreadBuffer>.fromOpaque(raw)
            if buffer._withUnsafeGuaranteedRef({ $0.writer == identity }) {
                buffer._withUnsafeGuaranteedRef { $0.append(event, current: current.rawValue, allowed: allowed, ticks: ticks) }
                return
            }
        }
        threadBuffer().append(event, current: current.rawValue, allowed: allowed, ticks: ticks)
    }

    /// This thread's buffer of this writer, found through the pthread slot (or made),
    /// and put in the thread's fast slot.
    @inline(never)
    private func threadBuffer() -> AccessJournalThreadBuffer {
        let key = accessJournalThreadKey
        if let raw = pthread_getspecific(key) {
            let held = Unmanaged<AccessJournalThreadBuffer>.fromOpaque(raw)
            if held._withUnsafeGuaranteedRef({ $0.writer == identity }) {
                ctxdebug_set_access_log_buffer(raw)
                return held.takeUnretainedValue()
            }
            // The thread moves to another journal: what it has for the old one is written
            // now, and the slot's reference goes (the old writer keeps its own).
            if ctxdebug_access_log_buffer() == raw { ctxdebug_set_access_log_buffer(nil) }
            pthread_setspecific(key, nil)
            held.takeRetainedValue().close()
        }
        let buffer = AccessJournalThreadBuffer(
            capacity: blockCapacity, pid: pid, thread: UInt32(truncatingIfNeeded: ctxdebug_thread_id()),
            threadName: Checker.currentThreadName(), file: file, clock: clock, writer: identity)
        buffers.withLock { $0[ObjectIdentifier(buffer)] = buffer }
        // The thread's slot holds a +1 reference, released when the thread exits.
        pthread_setspecific(key, Unmanaged.passRetained(buffer).toOpaque())
        ctxdebug_set_access_log_buffer(Unmanaged.passUnretained(buffer).toOpaque())
        return buffer
    }

    /// Writes every thread's unflushed events.
    public func flush() {
        let all = buffers.withLock { buffers in
            // Forget the buffers of threads that have exited (already flushed).
            buffers = buffers.filter { !$0.value.isClosed }
            return Array(buffers.values)
        }
        for buffer in all { buffer.flush() }
    }

    /// Flushes, then closes the file. Later records are dropped.
    public func close() {
        let all = buffers.withLock { buffers in
            defer { buffers.removeAll() }
            return Array(buffers.values)
        }
        for buffer in all { buffer.close() }
        file.close()
    }
}

/// The journal's file descriptor. Shared by the writer and every thread buffer, so a
/// buffer can flush at thread exit whatever became of the writer.
final class AccessJournalFile: Sendable {
    private let fd: LockedValue<Int32>

    init(fd: Int32) { self.fd = LockedValue(fd) }

    /// Appends one finished block with one write(2) under the lock, so blocks of
    /// different threads never interleave (and O_APPEND keeps those of other
    /// processes whole).
    func write(_ bytes: UnsafeRawPointer, count: Int) {
        fd.withLock { fd in
            guard fd >= 0 else { return }
            _ = ctxdebug_write_all(fd, bytes, count)
        }
    }

    func close() {
        fd.withLock { fd in
            if fd >= 0 { Glibc.close(fd) }
            fd = -1
        }
    }

    deinit { close() }
}

private let writerSerial = Atomic<UInt>(0)

/// The one pthread key of every writer: a thread's buffer of the journal it records in
/// now. One for the process, not one per writer: a process has only about 1,000 keys, and
/// a key per journal ran out in long test runs (see `threadBuffer()`).
private let accessJournalThreadKey: pthread_key_t = {
    var key = pthread_key_t()
    let created = pthread_key_create(&key, accessJournalThreadDidExit)
    precondition(created == 0, "ctxdebug: no pthread key is left for the access journal (pthread_key_create: \(created))")
    return key
}()

/// Called by pthreads when a thread that journaled exits.
private func accessJournalThreadDidExit(_ raw: UnsafeMutableRawPointer?) {
    guard let raw else { return }
    // Another key's destructor may still journal: never through the buffer freed here.
    if ctxdebug_access_log_buffer() == raw { ctxdebug_set_access_log_buffer(nil) }
    let buffer = Unmanaged<AccessJournalThreadBuffer>.fromOpaque(raw).takeRetainedValue()
    buffer.close()
}

/// One access waiting in a thread's staging area to be encoded.
struct StagedAccess {
    var event: AccessEvent
    var current: UInt
    var ticks: UInt64
    var allowed: Bool
}

/// One thread's journal buffer: a staging area that the thread fills without a lock,
/// and the block under construction.
///
/// `append` (the owning thread only) copies the access into the next staging slot and
/// publishes the new count with a release store: no lock, no atomic read-modify-write.
/// Every `stagingCapacity` accesses, the owner takes the lock once and encodes the
/// staged accesses into the block (`drain`). `flush()` and `close()` from any thread
/// take the same lock, read the published count with an acquire load, and encode what
/// is staged first; the owner never rewrites a slot below the published count except
/// in `drain`, under the lock, so what they read is whole.
///
/// `@unchecked Sendable`: the staging slots are raw memory, written by the owning
/// thread only and read by other threads only under `state`'s lock, below a count
/// published with release/acquire (see above).
final class AccessJournalThreadBuffer: @unchecked Sendable {
    /// Accesses staged between two encodings: one lock per this many accesses.
    static let stagingCapacity = 32

    struct State: ~Copyable {
        /// Block header space, then the body.
        var storage: UnsafeMutablePointer<UInt8>?
        let capacity: Int
        var used = 0
        var count: UInt32 = 0
        /// The first event's time, ns since the session start, and its ticks.
        var baseTime: UInt64 = 0
        var baseTicks: UInt64 = 0
        var lastTicks: UInt64 = 0
        var lastOwner: UInt = 0
        var lastCurrent: UInt = 0
        var lastContext: UInt32 = 0
        var lastSubject: UInt16 = 0
        var lastMember: UInt16 = .max
        var lastInstance: Int64 = 0
        /// Queues whose label this block already holds.
        var labeled: [UInt] = []
        /// Bit n set: operation n's name is in this block already.
        var namedOperations: UInt32 = 0
        /// Staged accesses already encoded by a flush from another thread.
        var consumed = 0
        /// The time readers give the last event of the block written before: the next
        /// block's base time is never earlier, so one thread's times never go back.
        var previousLastTime: UInt64 = 0

        init(capacity: Int) {
            self.capacity = capacity
            storage = .allocate(capacity: AccessJournalFormat.blockHeaderSize + capacity + AccessJournalWriter.recordReserve)
        }

        deinit { storage?.deallocate() }
    }

    let state: LockedValue<State>
    let pid: UInt32
    let thread: UInt32
    let threadName: String
    let file: AccessJournalFile
    let clock: AccessJournalClock
    /// The `identity` of the writer it belongs to.
    let writer: UInt
    private let closed = Atomic<Bool>(false)
    private let staged: UnsafeMutablePointer<StagedAccess>
    /// Written by the owner only (release); read by others under the lock (acquire).
    private let stagedCount = Atomic<Int>(0)
    /// The clock (ns since the session start) and the ticks, read together when the
    /// first access of a staging round was staged: what a block starting in that
    /// round takes its base time from. Owner-written, published with `stagedCount`.
    private var roundTime: UInt64 = 0
    private var roundTicks: UInt64 = 0

    var isClosed: Bool { closed.load(ordering: .relaxed) }

    init(capacity: Int, pid: UInt32, thread: UInt32, threadName: String, file: AccessJournalFile, clock: AccessJournalClock, writer: UInt) {
        self.writer = writer
        self.state = LockedValue(State(capacity: capacity))
        self.file = file
        self.clock = clock
        self.pid = pid
        self.thread = thread
        self.threadName = threadName
        staged = .allocate(capacity: Self.stagingCapacity)
        staged.initialize(
            repeating: StagedAccess(event: AccessEvent(operation: .other, owner: .none), current: 0, ticks: 0, allowed: true),
            count: Self.stagingCapacity)
    }

    deinit { staged.deallocate() }

    /// Stages one access of the owning thread; encodes the round when it is full.
    @inline(__always)
    func append(_ event: AccessEvent, current: UInt, allowed: Bool, ticks: UInt64) {
        let index = stagedCount.load(ordering: .relaxed)
        if index == 0 {
            roundTicks = ticks
            roundTime = clock.sinceStart()
        }
        staged[index] = StagedAccess(event: event, current: current, ticks: ticks, allowed: allowed)
        stagedCount.store(index + 1, ordering: .releasing)
        if index + 1 == Self.stagingCapacity { drain() }
    }

    /// The owner's encoding of a full staging round.
    @inline(never)
    private func drain() {
        state.withLock { state in
            encodeStaged(upTo: Self.stagingCapacity, &state)
            // Under the lock: a flush must never see the old count with `consumed` reset.
            state.consumed = 0
            stagedCount.store(0, ordering: .relaxed)
        }
    }

    /// Encodes the staged accesses from `state.consumed` up to `end` into the block.
    private func encodeStaged(upTo end: Int, _ state: inout State) {
        guard state.storage != nil else { return }
        for index in state.consumed..<end {
            let access = staged[index]
            encode(access.event, current: access.current, allowed: access.allowed, ticks: access.ticks, &state)
        }
        state.consumed = end
    }

    private func encode(_ event: AccessEvent, current: UInt, allowed: Bool, ticks: UInt64, _ state: inout State) {
        guard let storage = state.storage else { return }
        if state.used + AccessJournalWriter.recordReserve > state.capacity {
            write(&state)
        }
        let operation = event.operation.rawValue & AccessJournalFormat.operationMask
        if encodeRepeat(event, current: current, allowed: allowed, ticks: ticks, operation: operation, storage, &state) { return }
        var out = ByteWriter(base: storage + AccessJournalFormat.blockHeaderSize, offset: state.used)
        if state.count == 0 { startBlock(atTicks: ticks, &out, &state) }
        let owner = event.owner.rawValue
        var flags: UInt8 = 0
        if owner != state.lastOwner {
            flags |= AccessJournalFormat.ownerChanged
            if !state.labeled.contains(owner) { label(owner, into: &out, state: &state) }
        }
        if current != state.lastCurrent {
            flags |= AccessJournalFormat.currentChanged
            if !state.labeled.contains(current) { label(current, into: &out, state: &state) }
        }
        if event.context != state.lastContext { flags |= AccessJournalFormat.contextChanged }
        if event.subject != state.lastSubject { flags |= AccessJournalFormat.subjectChanged }
        if event.member != state.lastMember { flags |= AccessJournalFormat.memberChanged }
        if event.instance != state.lastInstance { flags |= AccessJournalFormat.instanceChanged }
        if state.namedOperations & (1 << UInt32(operation)) == 0 { name(operation, into: &out, state: &state) }

        out.byte(operation | (allowed ? AccessJournalFormat.allowedBit : 0))
        out.byte(flags)
        out.varint(ticks > state.lastTicks ? ticks &- state.lastTicks : 0)
        if flags & AccessJournalFormat.ownerChanged != 0 { out.varint(owner) }
        if flags & AccessJournalFormat.currentChanged != 0 { out.varint(current) }
        if flags & AccessJournalFormat.contextChanged != 0 { out.varint(UInt64(event.context)) }
        if flags & AccessJournalFormat.subjectChanged != 0 { out.varint(UInt64(event.subject)) }
        if flags & AccessJournalFormat.memberChanged != 0 { out.varint(UInt64(event.member &+ 1)) }
        if flags & AccessJournalFormat.instanceChanged != 0 {
            out.varint(AccessJournalFormat.zigzag(event.instance &- state.lastInstance))
        }
        state.used = out.offset
        state.count += 1
        state.lastTicks = max(ticks, state.lastTicks)
        state.lastOwner = owner
        state.lastCurrent = current
        state.lastContext = event.context
        state.lastSubject = event.subject
        state.lastMember = event.member
        state.lastInstance = event.instance
    }

    /// The common case, kept short: the same access as the one before, a few ticks
    /// later, as a three- or four-byte record. False when the access is not that.
    @inline(__always)
    private func encodeRepeat(
        _ event: AccessEvent, current: UInt, allowed: Bool, ticks: UInt64, operation: UInt8,
        _ storage: UnsafeMutablePointer<UInt8>, _ state: inout State
    ) -> Bool {
        let delta = ticks &- state.lastTicks
        guard state.count != 0, delta < 0x4000, ticks >= state.lastTicks, event.owner.rawValue == state.lastOwner,
            current == state.lastCurrent, event.instance == state.lastInstance, event.context == state.lastContext,
            event.subject == state.lastSubject, event.member == state.lastMember,
            state.namedOperations & (1 << UInt32(operation)) != 0
        else { return false }
        let out = storage + AccessJournalFormat.blockHeaderSize + state.used
        out[0] = operation | (allowed ? AccessJournalFormat.allowedBit : 0)
        out[1] = 0
        if delta < 0x80 {
            out[2] = UInt8(truncatingIfNeeded: delta)
            state.used += 3
        } else {
            out[2] = UInt8(truncatingIfNeeded: delta) | 0x80
            out[3] = UInt8(truncatingIfNeeded: delta >> 7)
            state.used += 4
        }
        state.count += 1
        state.lastTicks = ticks
        return true
    }

    /// The first record of a block: its base time (the staging round's clock reading,
    /// moved by the ticks from it to this access) and the thread's name.
    private func startBlock(atTicks ticks: UInt64, _ out: inout ByteWriter, _ state: inout State) {
        state.baseTime = max(clock.time(atTicks: ticks, from: roundTime, atTicks: roundTicks), state.previousLastTime)
        state.baseTicks = ticks
        state.lastTicks = ticks
        out.byte(0)
        out.byte(AccessJournalFormat.threadNameRecord)
        out.bytes(threadName, limit: AccessJournalFormat.maximumNameLength)
    }

    private func label(_ queue: UInt, into out: inout ByteWriter, state: inout State) {
        state.labeled.append(queue)
        guard queue != QueueIdentity.none.rawValue else { return }
        out.byte(0)
        out.byte(AccessJournalFormat.queueLabelRecord)
        out.varint(queue)
        out.bytes(QueueIdentity(rawValue: queue).label, limit: AccessJournalFormat.maximumNameLength)
    }

    /// The operation's registered name, the first time the block uses it (none when
    /// nobody registered one: readers then name it by their own registrations).
    private func name(_ operation: UInt8, into out: inout ByteWriter, state: inout State) {
        state.namedOperations |= 1 << UInt32(operation)
        guard let name = AccessOperationNames.shared.name(of: operation) else { return }
        out.byte(0)
        out.byte(AccessJournalFormat.operationNameRecord)
        out.byte(operation)
        out.bytes(name, limit: AccessJournalFormat.maximumNameLength)
    }

    /// Encodes what is staged and writes the block. Any thread.
    func flush() {
        state.withLock { state in
            encodeStaged(upTo: stagedCount.load(ordering: .acquiring), &state)
            write(&state)
        }
    }

    /// Writes what is left and frees the block; later accesses are dropped. Any thread.
    func close() {
        state.withLock { state in
            encodeStaged(upTo: stagedCount.load(ordering: .acquiring), &state)
            write(&state)
            state.storage?.deallocate()
            state.storage = nil
        }
        closed.store(true, ordering: .relaxed)
    }

    /// Finishes the block in `state` (header, checksum), writes it, and starts a new one.
    private func write(_ state: inout State) {
        guard state.count > 0, let storage = state.storage else { return }
        let header = ByteWriter(base: storage, offset: 0)
        for (index, byte) in AccessJournalFormat.blockMagic.enumerated() { storage[index] = byte }
        header.store(UInt32(state.used), at: 4)
        header.store(state.count, at: 12)
        header.store(pid, at: 16)
        header.store(thread, at: 20)
        header.store(state.baseTime, at: 24)
        // The second clock reading: with the first, it gives ns per tick for the block.
        let endTicks = ctxdebug_ticks()
        let endTime = clock.sinceStart()
        let span = endTicks > state.baseTicks ? endTicks &- state.baseTicks : 0
        header.store(max(endTime, state.baseTime), at: 32)
        header.store(span, at: 40)
        state.previousLastTime = AccessJournalFormat.eventTime(
            ticksSinceBase: state.lastTicks &- state.baseTicks, baseTime: state.baseTime,
            endTime: max(endTime, state.baseTime), tickSpan: span)
        let checked = UnsafeRawBufferPointer(start: storage + 12, count: AccessJournalFormat.blockHeaderSize - 12 + state.used)
        header.store(AccessJournalFormat.crc32c(checked), at: 8)
        file.write(storage, count: AccessJournalFormat.blockHeaderSize + state.used)
        state.used = 0
        state.count = 0
        state.lastOwner = 0
        state.lastCurrent = 0
        state.lastContext = 0
        state.lastSubject = 0
        state.lastMember = .max
        state.lastInstance = 0
        state.labeled.removeAll(keepingCapacity: true)
        state.namedOperations = 0
    }
}

/// The session's clock: nanoseconds since the session header was written, and the
/// tick rate, measured from the session start.
struct AccessJournalClock: Sendable {
    let startNanos: UInt64
    let startTicks: UInt64

    init() {
        startTicks = ctxdebug_ticks()
        startNanos = ctxdebug_now_ns()
    }

    @inline(__always)
    func sinceStart() -> UInt64 { ctxdebug_now_ns() &- startNanos }

    /// The time at `ticks`, from a reading `time` taken at `readingTicks`: exact when
    /// they are the same, and otherwise moved by the tick rate since the session start.
    func time(atTicks ticks: UInt64, from time: UInt64, atTicks readingTicks: UInt64) -> UInt64 {
        guard ticks != readingTicks, readingTicks > startTicks, time > 0 else { return time }
        let nanosecondsPerTick = Double(time) / Double(readingTicks &- startTicks)
        if ticks > readingTicks { return time &+ UInt64(Double(ticks &- readingTicks) * nanosecondsPerTick) }
        let back = UInt64(Double(readingTicks &- ticks) * nanosecondsPerTick)
        return back < time ? time &- back : 0
    }
}
