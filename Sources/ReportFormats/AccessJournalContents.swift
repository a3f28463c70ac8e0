public import ViolationModel

/// An access journal as the reports read it (`ctxdebug journal`'s text and JSON, its
/// Chrome trace): plain values, so that rendering needs no runtime. ConcurrencyDebug's
/// `AccessJournalReader` reads the file; the CLI turns what it read into this.
public struct AccessJournalContents {
    /// The queue numbers the checker gives the absence of a queue and the main queue.
    public static let noQueue: UInt = 0
    public static let mainQueue: UInt = 1

    /// One journaled access.
    public struct Event: Sendable, Hashable {
        /// Nanoseconds since the writing process opened the journal (monotonic clock).
        public var time: UInt64
        public var pid: UInt32
        /// The kernel thread id of the thread that made the access.
        public var thread: UInt32
        /// The queue that was running, and the queue that owns what was touched.
        public var current: UInt
        public var owner: UInt
        /// The numbers of the access: context, entity, attribute (`UInt16.max` for
        /// none) and object.
        public var context: UInt32
        public var subject: UInt16
        public var member: UInt16
        public var instance: Int64
        /// The operation's name.
        public var operation: String
        /// False for a violation.
        public var allowed: Bool

        public init(
            time: UInt64, pid: UInt32, thread: UInt32, current: UInt, owner: UInt, context: UInt32, subject: UInt16,
            member: UInt16, instance: Int64, operation: String, allowed: Bool
        ) {
            self.time = time
            self.pid = pid
            self.thread = thread
            self.current = current
            self.owner = owner
            self.context = context
            self.subject = subject
            self.member = member
            self.instance = instance
            self.operation = operation
            self.allowed = allowed
        }
    }

    /// A process that opened the journal, and when (nanoseconds since 1970, UTC).
    public struct Session: Sendable, Hashable {
        public var pid: UInt32
        public var startWallNanos: UInt64

        public init(pid: UInt32, startWallNanos: UInt64) {
            self.pid = pid
            self.startWallNanos = startWallNanos
        }
    }

    /// Something wrong in the file that the reader stepped over.
    public struct Problem: Sendable, Hashable {
        /// `corrupt-block`, `garbage` or `cut-tail`.
        public var kind: String
        public var offset: Int
        public var length: Int
        public var detail: String
        /// The problem in words.
        public var description: String

        public init(kind: String, offset: Int, length: Int, detail: String, description: String) {
            self.kind = kind
            self.offset = offset
            self.length = length
            self.detail = detail
            self.description = description
        }
    }

    public var path: String
    public var sessions: [Session]
    /// Queue labels by queue number.
    public var queueLabels: [UInt: String]
    /// Thread names by pid (high 32 bits) and thread (low 32 bits).
    public var threadNames: [UInt64: String]
    public var problems: [Problem]
    public var stats: AccessJournalStats
    /// Calls its argument with every event, in file order (each block of one thread in
    /// time order); the events are read as they are given, never all held at once.
    public var forEachEvent: ((Event) -> Void) -> Void

    public init(
        path: String, sessions: [Session], queueLabels: [UInt: String], threadNames: [UInt64: String],
        problems: [Problem], stats: AccessJournalStats, forEachEvent: @escaping ((Event) -> Void) -> Void
    ) {
        self.path = path
        self.sessions = sessions
        self.queueLabels = queueLabels
        self.threadNames = threadNames
        self.problems = problems
        self.stats = stats
        self.forEachEvent = forEachEvent
    }

    /// An in-memory journal of `events`.
    public init(
        path: String, sessions: [Session] = [], queueLabels: [UInt: String] = [:], threadNames: [UInt64: String] = [:],
        problems: [Problem] = [], stats: AccessJournalStats, events: [Event]
    ) {
        self.init(
            path: path, sessions: sessions, queueLabels: queueLabels, threadNames: threadNames, problems: problems,
            stats: stats, forEachEvent: { body in events.forEach(body) })
    }
}
