@_spi(Runtime) import ConcurrencyDebug

/// Registers CoreData's sources as the runtime's with the concurrency debugger, once: a
/// report's stack and an explore step's site then start at the app's line that called
/// `context.count(for:)` or `object.value(forKey:)`, not at this module's forwarding to
/// ManagedContext.
enum CoreDataRuntimeFrames {
    static let registered: Void = {
        let file = #filePath
        let directory = file.lastIndex(of: "/").map { String(file[...$0]) } ?? file
        ConcurrencyDebug.registerRuntimeLibrary(sourceDirectory: directory, module: "CoreData")
    }()
}
