@_spi(Runtime) import ConcurrencyDebug
import Foundation

/// Registers ManagedContext's sources as the runtime's with the concurrency debugger,
/// once: printed stacks of a violation then start at the user's access, below the
/// property wrapper, the wrapped property's getter and the context's checks.
enum ManagedContextRuntimeFrames {
    static let registered: Void = {
        let file = #filePath
        let directory = file.lastIndex(of: "/").map { String(file[...$0]) } ?? file
        ConcurrencyDebug.registerRuntimeLibrary(sourceDirectory: directory, module: "ManagedContext")
        // The schedule control's own sources (and the preload library's) are registered by
        // ScheduleControl, at a run's first scheduler.
    }()
}
