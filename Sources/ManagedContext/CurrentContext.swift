import Foundation

/// The context whose `perform` or `performAndWait` block is running on this thread:
/// what Core Data's `NSFetchRequest.execute()` fetches in ("Executes the fetch request
/// using the current managed object context. This method must be called from within a
/// block submitted to a managed object context."). A thread-local, unretained: the
/// block's frame holds the context while it is current.
enum CurrentContext {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    static var context: ManagedObjectContext? {
        pthread_getspecific(key).map { Unmanaged<ManagedObjectContext>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Runs `body` with `context` current, the previous one current again after.
    @inline(__always)
    static func with(_ context: ManagedObjectContext, _ body: () -> Void) {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(context).toOpaque())
        defer { pthread_setspecific(key, previous) }
        body()
    }
}

extension ManagedObjectContext {
    /// The context whose perform block is running on this thread, if any.
    @_spi(CoreData) public static var current: ManagedObjectContext? { CurrentContext.context }
}
