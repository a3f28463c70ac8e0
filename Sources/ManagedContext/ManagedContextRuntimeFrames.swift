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
        // A scheduling point reached through libdispatch (explore's dispatch control): the
        // preload library's C and Swift's Dispatch overlay are plumbing, not the app's site.
        let sources = (directory as NSString).deletingLastPathComponent
        ConcurrencyDebug.registerRuntimeLibrary(sourceDirectory: sources + "/CtxdebugDispatchControl/", module: "CtxdebugDispatchControl")
        ConcurrencyDebug.registerRuntimeLibrary(sourceDirectory: "/-/Dispatch/", module: "Dispatch")
    }()
}
