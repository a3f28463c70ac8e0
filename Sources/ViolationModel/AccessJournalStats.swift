/// Numbers about an access journal: what ConcurrencyDebug's `AccessJournalReader` counts
/// and what `ctxdebug journal stats` prints (through Reports, which links no runtime).
public struct AccessJournalStats: Sendable, Hashable {
    public var fileBytes: Int
    public var sessions: Int
    public var blocks: Int
    public var events: Int
    public var violations: Int
    public var threads: Int
    public var queues: Int
    public var corruptBlocks: Int
    /// Bytes between blocks that are no block at all (skipped while looking for the next).
    public var garbageBytes: Int
    public var cutTailBytes: Int
    /// Bytes of block bodies (records only) per event.
    public var recordBytesPerEvent: Double
    /// Bytes of the whole file per event (headers, names and checksums included).
    public var fileBytesPerEvent: Double
    /// Events per operation name.
    public var operations: [String: Int]
    /// The span of event times, in nanoseconds.
    public var duration: UInt64

    public init(
        fileBytes: Int, sessions: Int, blocks: Int, events: Int, violations: Int, threads: Int, queues: Int,
        corruptBlocks: Int, garbageBytes: Int, cutTailBytes: Int, recordBytesPerEvent: Double, fileBytesPerEvent: Double,
        operations: [String: Int], duration: UInt64
    ) {
        self.fileBytes = fileBytes
        self.sessions = sessions
        self.blocks = blocks
        self.events = events
        self.violations = violations
        self.threads = threads
        self.queues = queues
        self.corruptBlocks = corruptBlocks
        self.garbageBytes = garbageBytes
        self.cutTailBytes = cutTailBytes
        self.recordBytesPerEvent = recordBytesPerEvent
        self.fileBytesPerEvent = fileBytesPerEvent
        self.operations = operations
        self.duration = duration
    }
}
