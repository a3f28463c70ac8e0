@_spi(Runtime) import ConcurrencyDebug
import Foundation

/// Registers the schedule control's sources as the runtime's with the concurrency
/// debugger, once (at a run's first scheduler): a scheduling point reached through
/// libdispatch (explore's dispatch control) is then reported at the app's site, not in
/// the scheduler, the preload library's C or Swift's Dispatch overlay.
enum ScheduleControlRuntimeFrames {
    static let registered: Void = {
        let file = #filePath
        let directory = file.lastIndex(of: "/").map { String(file[...$0]) } ?? file
        ConcurrencyDebug.registerRuntimeLibrary(sourceDirectory: directory, module: "ScheduleControl")
        let sources = (directory as NSString).deletingLastPathComponent
        ConcurrencyDebug.registerRuntimeLibrary(sourceDirectory: sources + "/CtxdebugDispatchControl/", module: "CtxdebugDispatchControl")
        ConcurrencyDebug.registerRuntimeLibrary(sourceDirectory: "/-/Dispatch/", module: "Dispatch")
    }()
}
