import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether the calling thread is the process's main thread, remembered per thread: on
/// Linux `Thread.isMainThread` asks the kernel (gettid and getpid), and the dispatch
/// control asks at every hook of a thread that is no unit and at every block's end.
enum MainThread {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    static var isCurrent: Bool {
        if let known = pthread_getspecific(key) { return UInt(bitPattern: known) == 1 }
        let main = Thread.isMainThread
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: main ? 1 : 2))
        return main
    }
}
