import CtxdebugHelpers

/// The frames of a stack that belong to a library's own machinery rather than to the
/// code that uses it: a printed report starts below them, at the user's line.
///
/// A library registers its source directory and module name once
/// (`ConcurrencyDebug.registerRuntimeLibrary(sourceDirectory:module:)`); ManagedContext
/// does when its first context is made, and ConcurrencyDebug registers itself (for
/// `QueueConfined`). An attribute access then shows, from the top: the runtime's
/// check, the property wrapper's static `subscript(_enclosingInstance:wrapped:storage:)`, the synthesized
/// getter or setter of the wrapped property (in the user's file, at its declaration),
/// and then the user's access. The first three are marked `isRuntime`.
enum RuntimeFrames {
    struct Library: Sendable, Equatable {
        /// An absolute directory with a trailing "/".
        var sourceDirectory: String
        /// The module name followed by "." (how demangled names begin).
        var modulePrefix: String
    }

    private static let libraries = LockedValue<[Library]>([ownLibrary])

    /// ConcurrencyDebug itself. The checker's own frames are dropped before marking;
    /// what is left of it at the top (`QueueConfined.value`) is the runtime's.
    private static var ownLibrary: Library {
        Library(sourceDirectory: directory(of: #filePath), modulePrefix: "ConcurrencyDebug.")
    }

    static func directory(of file: String) -> String {
        guard let slash = file.lastIndex(of: "/") else { return file }
        return String(file[...slash])
    }

    static func register(_ library: Library) {
        libraries.withLock { if !$0.contains(library) { $0.append(library) } }
    }

    /// `frames` with the runtime's frames at the top marked `isRuntime` (unless every
    /// frame would be: then none is, so that a report never shows an empty stack).
    static func marking(_ frames: [StackFrame]) -> [StackFrame] {
        let libraries = self.libraries.withLock { $0 }
        var marked = frames
        var index = 0
        var end = 0
        var afterWrapper = false
        while index < marked.count {
            let frame = marked[index]
            if isLibraryFrame(frame, libraries) {
                if frame.function?.contains("(_enclosingInstance: ") == true { afterWrapper = true }
                end = index + 1
            } else if afterWrapper, isAccessor(frame) {
                // The wrapped property's synthesized accessor: plumbing, in the user's
                // file but not the user's access.
                afterWrapper = false
                end = index + 1
            } else if !isPlumbing(frame) {
                break
            }
            index += 1
        }
        // Plumbing counts as the runtime's only between two of its frames.
        for runtime in 0..<end { marked[runtime].isRuntime = true }
        return end == marked.count ? frames : marked
    }

    /// Where a marked stack was reached in the app: its innermost frame with a source
    /// file that is no runtime library's (a library's frame deeper down, as when XCTest
    /// calls `asyncAfter` inside the dispatch control's `dispatch_sync`, is skipped too);
    /// else, for a stack wholly inside libraries without debug info, the first frame
    /// below the runtime's that names a function.
    static func siteFrame(_ frames: [StackFrame]) -> StackFrame? {
        let libraries = self.libraries.withLock { $0 }
        return frames.first { !$0.isRuntime && $0.file != nil && !isLibraryFrame($0, libraries) }
            ?? frames.first { !$0.isRuntime && $0.function != nil && !isLibraryFrame($0, libraries) }
    }

    /// A thunk, the standard library, or the package's lock box: what a runtime's
    /// frames call each other through (ManagedContext runs an operation's body under
    /// its context's lock as a closure).
    static func isPlumbing(_ frame: StackFrame) -> Bool {
        guard let function = frame.function else { return false }
        if function.contains("thunk helper") { return true }
        let name = baseName(function)
        return ["Swift.", "(extension in Swift):", "CtxdebugHelpers.", "(extension in CtxdebugHelpers):"].contains { name.hasPrefix($0) }
    }

    static func isLibraryFrame(_ frame: StackFrame, _ libraries: [Library]) -> Bool {
        // A thunk's file is "<compiler-generated>" (under the build directory): its name says whose it is.
        if let file = frame.file, file.hasPrefix("/"), !file.hasSuffix("<compiler-generated>") {
            return libraries.contains { file.hasPrefix($0.sourceDirectory) }
        }
        guard let function = frame.function else { return false }
        let name = baseName(function)
        return libraries.contains { name.hasPrefix($0.modulePrefix) }
    }

    /// A getter, setter or modify accessor (not a closure inside one).
    static func isAccessor(_ frame: StackFrame) -> Bool {
        guard let function = frame.function, !function.hasPrefix("closure #"), !function.hasPrefix("implicit closure #")
        else { return false }
        let name = baseName(function)
        return [".getter", ".setter", ".modify", ".read"].contains { accessor in
            name.contains(accessor + " :") || name.hasSuffix(accessor)
        }
    }

    /// A demangled name without the "specialization … of " and "merged " wrappers.
    static func baseName(_ function: String) -> String {
        var name = function
        // "@objc " marks a C-callable closure (the dispatch-control hooks).
        if name.hasPrefix("@objc ") { name.removeFirst("@objc ".count) }
        for prefix in ["merged ", "static ", "generic specialization ", "function signature specialization "] {
            if name.hasPrefix(prefix) {
                name.removeFirst(prefix.count)
                if let of = name.range(of: "> of ") { name = String(name[of.upperBound...]) }
            }
        }
        if name.hasPrefix("static ") { name.removeFirst("static ".count) }
        // A closure's partial apply forwarder has no debug info: it belongs to the
        // function the closure is in (ManagedContext runs an operation's body as one).
        if name.hasPrefix("partial apply forwarder for ") { name.removeFirst("partial apply forwarder for ".count) }
        while name.hasPrefix("closure #") || name.hasPrefix("implicit closure #"), let owner = name.range(of: " in ") {
            name = String(name[owner.upperBound...])
        }
        // A closure stored in a property belongs to the property's type.
        for prefix in ["variable initialization expression of ", "static "] where name.hasPrefix(prefix) {
            name.removeFirst(prefix.count)
        }
        return name
    }
}

extension ConcurrencyDebug {
    /// Says that frames from `sourceDirectory` (an absolute path; pass the directory
    /// of one of the library's own `#filePath`s), or from functions of `module` when
    /// there is no debug info, are the library's own machinery: reports print stacks
    /// from the first frame below them, so `#0` is the line that made the access. The
    /// JSON report keeps every frame, those marked `"runtime": true`.
    @_spi(Runtime) public static func registerRuntimeLibrary(sourceDirectory: String, module: String) {
        let directory = sourceDirectory.hasSuffix("/") ? sourceDirectory : sourceDirectory + "/"
        RuntimeFrames.register(RuntimeFrames.Library(sourceDirectory: directory, modulePrefix: module + "."))
    }
}
