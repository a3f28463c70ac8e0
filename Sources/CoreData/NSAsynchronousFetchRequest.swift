import CtxdebugHelpers
@_spi(CoreData) public import ManagedContext

/// Core Data's `NSPersistentStoreAsynchronousResult`: what `execute(_:)` returns for an
/// asynchronous request, at once, before the work is done.
open class NSPersistentStoreAsynchronousResult: NSPersistentStoreResult, @unchecked Sendable {
    public let managedObjectContext: NSManagedObjectContext
    /// Why the request failed, once it has run.
    public internal(set) var operationError: (any Error)?
    /// Always nil here: the fetch reports no progress.
    public let progress: Progress? = nil
    private let cancelled = LockedValue(false)

    init(context: NSManagedObjectContext) {
        managedObjectContext = context
        super.init()
    }

    /// Cancels the request if it has not run yet; its completion block is then not called.
    open func cancel() { cancelled.withLock { $0 = true } }
    var isCancelled: Bool { cancelled.withLock { $0 } }
}

/// Core Data's `NSAsynchronousFetchResult`: the result handed to the completion block.
open class NSAsynchronousFetchResult<ResultType>: NSPersistentStoreAsynchronousResult, @unchecked Sendable {
    public let fetchRequest: NSAsynchronousFetchRequest<ResultType>
    /// The fetched results; nil until the fetch has run, and when it failed.
    public internal(set) var finalResult: [ResultType]?

    init(_ request: NSAsynchronousFetchRequest<ResultType>, context: NSManagedObjectContext) {
        fetchRequest = request
        super.init(context: context)
    }
}

/// Core Data's `NSAsynchronousFetchRequest`: `context.execute(request)` returns at once,
/// and the fetch runs later in a block on the context's queue, which then calls
/// `completionBlock` there with the results, as Core Data does for a main-queue context
/// (where the chapter 4 app of Core Data by Tutorials updates its table view in it).
open class NSAsynchronousFetchRequest<ResultType>: NSPersistentStoreRequest, @unchecked Sendable {
    public let fetchRequest: NSFetchRequest<ResultType>
    public let completionBlock: ((NSAsynchronousFetchResult<ResultType>) -> Void)?
    /// Accepted; it changes nothing here.
    open var estimatedResultCount = 0

    public init(fetchRequest request: NSFetchRequest<ResultType>, completionBlock blk: ((NSAsynchronousFetchResult<ResultType>) -> Void)? = nil) {
        fetchRequest = request
        completionBlock = blk
        super.init()
    }
}

/// What `execute(_:)` needs of an asynchronous fetch without knowing its result type.
protocol AsynchronousFetch {
    func start(in context: NSManagedObjectContext) -> NSPersistentStoreResult
}

extension NSAsynchronousFetchRequest: AsynchronousFetch {
    func start(in context: NSManagedObjectContext) -> NSPersistentStoreResult {
        let result = NSAsynchronousFetchResult(self, context: context)
        context.perform { [self] in
            guard !result.isCancelled else { return }
            do {
                result.finalResult = try context.fetch(fetchRequest)
            } catch {
                result.operationError = error
            }
            completionBlock?(result)
        }
        return result
    }
}
