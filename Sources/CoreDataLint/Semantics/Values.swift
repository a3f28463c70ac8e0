import CtxdebugHelpers
import SwiftSyntax

/// The queue a context confines its objects to, as far as the source tells.
enum ContextQueue: Sendable, Hashable {
    case main
    case `private`
    /// A parameter or property whose creation the linter cannot see.
    case unknown
}

/// Where a context the linter follows comes from.
enum ContextOrigin: Equatable {
    /// A property: `viewContext`, `mainContext`. A method may use it while its caller
    /// is inside the context's `perform`.
    case property
    /// A parameter of the function.
    case parameter
    /// Made in the function being read: `newBackgroundContext()`,
    /// `NSManagedObjectContext(concurrencyType:)`. No caller can be inside its `perform`.
    case local
    /// `performBackgroundTask`'s parameter: a context made for that block alone, to
    /// which no object from outside can belong.
    case backgroundTask
}

/// A managed object context the linter can follow through a file: `viewContext`, a
/// property such as `mainContext`, or a local made by `newBackgroundContext()`.
struct ContextRef: Equatable {
    /// What identifies it: the same key is the same context.
    var key: String
    /// The name the code uses for it, for messages.
    var name: String
    var queue: ContextQueue
    var origin: ContextOrigin
    /// Where another file or function tells its queue, for messages.
    var citation: String? = nil
    /// The frame (function or closure) that made it, for a context made here.
    var madeInFrame: Int? = nil
    /// Whose property it is, when the code tells: `self`'s, or a parameter's
    /// (`other.backgroundContext`). Two properties of one name are the same context
    /// unless their owners are told apart.
    var owner: ContextOwner? = nil

    /// Made in the function being read, so code there runs outside its `perform`
    /// unless it is inside one.
    var isMadeHere: Bool { origin == .local || origin == .backgroundTask }

    /// A context property, known by its name in every file.
    static func property(_ name: String, queue: ContextQueue, citation: String? = nil) -> ContextRef {
        ContextRef(key: name, name: name, queue: queue, origin: .property, citation: citation)
    }

    /// A property or a function's result, as the project index knows it.
    static func indexed(_ name: String, _ fact: ContextFact, currentFile: String) -> ContextRef {
        // A fact from this file alone is plain to the reader: no citation.
        let citation = fact.files.count == 1 && fact.files.contains(currentFile) && !TextSearch.foundationContains(";", in: fact.citation ?? "") ? nil : fact.citation
        return property(name, queue: fact.queue, citation: citation)
    }

    /// A context made by the expression `node`, before it is bound to a name.
    static func made(by node: some SyntaxProtocol, queue: ContextQueue) -> ContextRef {
        ContextRef(key: unnamedPrefix + String(node.position.utf8Offset), name: Expressions.text(node), queue: queue, origin: .local)
    }

    private static let unnamedPrefix = "made@"

    /// Made by an expression and not bound to a name yet.
    var isUnnamed: Bool { key.hasPrefix(Self.unnamedPrefix) }

    /// "the main-queue context 'viewContext'"; a context no name holds is named by the
    /// expression that makes it: "the private-queue context that
    /// stack.newTaskContext() makes".
    var described: String {
        // The block's method names it: `performBackgroundTask@…`, `save@…` (MagicalRecord's).
        if origin == .backgroundTask { return "\(key.prefix { $0 != "@" })'s context '\(name)'" }
        if isUnnamed {
            switch queue {
            case .main: return "the main-queue context that \(name) makes"
            case .private: return "the private-queue context that \(name) makes"
            case .unknown: return "the context that \(name) makes"
            }
        }
        switch queue {
        case .main: return "the main-queue context '\(name)'"
        case .private: return "the private-queue context '\(name)'"
        case .unknown: return "the context '\(name)'"
        }
    }

    /// "context.perform { }", or "its perform { }" for a context no name holds (each
    /// `stack.newTaskContext()` is another context: naming the call would be wrong).
    var performBlock: String { isUnnamed ? "its perform { }" : "\(name).perform { }" }

    /// The fix's start: "Wrap it in context.perform { }", or for a context no name holds,
    /// "Keep the context in a let (let context = stack.newTaskContext()) and wrap it in
    /// context.perform { }".
    var wrapInPerform: String {
        isUnnamed ? "Keep the context in a let (let context = \(name)) and wrap it in context.perform { }" : "Wrap it in \(name).perform { }"
    }

    /// The same context: the same key, and not the same property of two owners told apart.
    func isSame(as other: ContextRef) -> Bool {
        guard key == other.key else { return false }
        if let owner, let otherOwner = other.owner, owner != otherOwner { return false }
        return true
    }
}

/// The instance a context property is read through.
enum ContextOwner: Equatable {
    /// `self.context`, or `context` in the type's own code.
    case selfInstance
    /// `other.context`, where `other` is a parameter of the function: another instance
    /// than `self` and than another parameter, as far as the code tells.
    case parameter(String)
}

/// Where code runs, as far as the source tells.
enum ExecutionQueue: Equatable {
    /// A function body: the queue of whoever called it.
    case caller
    /// `DispatchQueue.main.async`, a SwiftUI `Button` action.
    case main
    /// A queue that belongs to no context: `DispatchQueue.global().async`,
    /// `Task.detached`, an observer's own `OperationQueue`. The text names it.
    case background(String)
    /// Inside `context.perform { }`, `performAndWait { }` or `performBackgroundTask { }`.
    case context(ContextRef)
    /// The queue of a private context the function cannot name: a function called only
    /// inside `performBackgroundTask { }`'s block, or inside `perform { }` of a private
    /// context made by its caller. Off the main queue; which private context's, unknown.
    /// The text names it.
    case privateContextQueue(String)
    /// A did-save observer registered with `queue: nil`: the saving context's thread.
    case postingThread
    /// A closure handed to an API the linter does not know: it may run anywhere.
    case unknown

    var described: String {
        switch self {
        case .caller: "the caller's queue"
        case .main: "the main queue"
        case .background(let name): name
        case .context(let context): "the queue of \(context.described)"
        case .privateContextQueue(let name): name
        case .postingThread: "the thread that posted the did-save notification"
        case .unknown: "an unknown queue"
        }
    }

    /// Whether code here runs on `context`'s queue, when the source tells.
    func runs(on context: ContextRef) -> Bool? {
        switch self {
        case .context(let current):
            if current.isSame(as: context) { return true }
            if current.origin == .backgroundTask || context.origin == .backgroundTask { return false }
            switch (current.queue, context.queue) {
            case (.main, .main): return true
            case (.unknown, _), (_, .unknown): return nil
            default: return false
            }
        case .main:
            switch context.queue {
            case .main: return true
            case .private: return false
            case .unknown: return nil
            }
        case .privateContextQueue:
            // Some private context's queue: not the main one; which private one, unknown.
            return context.queue == .main ? false : nil
        case .background, .postingThread: return false
        case .caller, .unknown: return nil
        }
    }
}

/// A fetch request, as built in the function.
struct FetchRequestInfo: Equatable {
    var entity: String?
    /// False for requests of objectIDs, dictionaries or counts.
    var yieldsObjects = true
    /// A `fetchLimit` was set.
    var hasLimit = false
    /// A `fetchBatchSize` was set.
    var hasBatchSize = false
    /// A `predicate` was set: the fetch is of the rows it matches, not of every row.
    var hasPredicate = false
}

/// A managed object (or an array of them) and the context that owns it.
struct ManagedObjectInfo: Equatable {
    /// Nil when the linter cannot tell (a property, a parameter).
    var owner: ContextRef?
    /// Inserted in the function being read (its objectID is temporary until saved).
    var isInsertedHere = false
    var isCollection = false
}

/// What a name or an expression holds, for the rules.
enum Value: Equatable {
    case context(ContextRef)
    case managedObject(ManagedObjectInfo)
    /// `x.objectID`, with what the linter knows of `x`.
    case objectID(ManagedObjectInfo)
    case fetchRequest(FetchRequestInfo)
    /// A queue made with `DispatchQueue(label:)`: the app's own, never a context's.
    /// The text names it for messages.
    case dispatchQueue(String)
    /// `OperationQueue()`: the app's own queue, off the main queue and every context's.
    case operationQueue(String)
    /// A `URLSession` the code made, with the queue its completion handlers run on.
    case urlSession(ExecutionQueue)
    /// An `NSFetchedResultsController` over this context: its `performFetch()` fetches
    /// from the context, on the caller's queue.
    case fetchedResultsController(ContextRef)
}
