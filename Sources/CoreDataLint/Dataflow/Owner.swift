/// The abstract values of the dataflow analysis (docs/lint.md, "The analysis: owners,
/// queues, summaries"): who owns a value, and where code runs.
///
/// Both are flat lattices: nothing is known yet (bottom, an absent value), one thing
/// is known, or two things disagree (`unknown`, top). A join of two different facts is
/// `unknown`, never one of them: the analysis does not guess.

/// Which context a context is, or owns an object: its queue and its identity.
struct Owner: Sendable, Hashable {
    enum Identity: Sendable, Hashable {
        /// A context property, known by its name (`viewContext`, `syncContext`).
        case property(String)
        /// A context made at a place (`newBackgroundContext()`,
        /// `NSManagedObjectContext(concurrencyType:)`, `performBackgroundTask`'s parameter):
        /// no caller can be inside its `perform`.
        case made(String)
        /// The context a function's parameter holds (for summaries: replaced by the
        /// argument's owner at each call).
        case parameter(String)
        /// In a function's summary only: a context the function makes at `site` with the
        /// concurrency type its caller hands for the parameter `label`
        /// (`createContext(_ type: NSManagedObjectContextConcurrencyType)`); a call makes a
        /// new context of the argument's queue.
        case madeWith(site: String, queueOf: String)
        /// Two identities joined, or one the code does not tell.
        case unknown
    }

    var queue: ContextQueue
    var identity: Identity
    /// A function or computed property that makes a new context at each call.
    var makesNew = false

    static let unknown = Owner(queue: .unknown, identity: .unknown)

    static func made(_ site: String, queue: ContextQueue) -> Owner { Owner(queue: queue, identity: .made(site), makesNew: true) }

    /// The least owner both may be: the same one, or the queue they share with an
    /// unknown identity, or `unknown`.
    func joined(with other: Owner) -> Owner {
        if self == other { return self }
        let queue = self.queue == other.queue ? self.queue : .unknown
        let identity = self.identity == other.identity ? self.identity : .unknown
        return Owner(queue: queue, identity: identity, makesNew: makesNew && other.makesNew)
    }

    var isKnown: Bool { queue != .unknown }
}

/// What an expression holds, for the analysis: a context, managed objects of a
/// context, or a collection of them. An expression that holds none of these has no
/// abstract value (nil): most expressions.
struct AbstractValue: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case context
        case object
        case objects
        /// A concurrency type (`.privateQueueConcurrencyType`): the owner's queue is the
        /// queue a context made with it confines to; no identity.
        case concurrencyType
        /// Two kinds joined: a value the analysis cannot use.
        case mixed
    }

    var kind: Kind
    var owner: Owner

    static func context(_ owner: Owner) -> AbstractValue { AbstractValue(kind: .context, owner: owner) }
    static func objects(of owner: Owner, collection: Bool) -> AbstractValue { AbstractValue(kind: collection ? .objects : .object, owner: owner) }
    static func concurrencyType(_ queue: ContextQueue) -> AbstractValue { AbstractValue(kind: .concurrencyType, owner: Owner(queue: queue, identity: .unknown)) }

    func joined(with other: AbstractValue) -> AbstractValue {
        AbstractValue(kind: kind == other.kind ? kind : .mixed, owner: owner.joined(with: other.owner))
    }

    /// `objects.first`: one of a collection's objects.
    var element: AbstractValue? {
        switch kind {
        case .objects: AbstractValue(kind: .object, owner: owner)
        case .object, .mixed: AbstractValue(kind: .mixed, owner: owner)
        case .context, .concurrencyType: nil
        }
    }
}

extension Optional where Wrapped == AbstractValue {
    /// The join of two optional values: nil (no value yet) is the bottom.
    func joined(with other: AbstractValue?) -> AbstractValue? {
        guard let self else { return other }
        guard let other else { return self }
        return self.joined(with: other)
    }
}

/// Where code runs, at a program point of the analysis.
enum QueuePoint: Sendable, Hashable {
    /// A function body: its caller's queue (the call graph may place it).
    case caller
    /// The main queue: `DispatchQueue.main.async`, `@MainActor`, `MainActor.run`.
    case main
    /// Inside `perform { }` or `performAndWait { }` of a context (or the block of
    /// `performBackgroundTask`, on its new context's queue).
    case context(Owner)
    /// A queue of no context: `DispatchQueue.global()`, `Task.detached`, a task group's
    /// child task, a queue the code made. The text names it.
    case other(String)
    /// A closure handed to an API the analysis does not know.
    case unknown

    func joined(with other: QueuePoint) -> QueuePoint { self == other ? self : .unknown }

    /// Whether code here runs on `owner`'s queue: nil when it cannot be told.
    func runs(on owner: Owner) -> Bool? {
        switch self {
        case .main: owner.queue == .main ? true : (owner.queue == .private ? false : nil)
        case .other: false
        case .context(let current):
            if current.identity != .unknown, current.identity == owner.identity { true }
            else if case .made = current.identity { false }
            else if case .made = owner.identity { false }
            else if current.queue == .main, owner.queue == .main { true }
            else if current.queue != .unknown, owner.queue != .unknown, current.queue != owner.queue { false }
            else { nil }
        case .caller, .unknown: nil
        }
    }
}
