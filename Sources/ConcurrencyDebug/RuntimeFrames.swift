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

    private static let libraries = LockedValue<[Library]>([ownLibrary, helpersLibrary])

    /// ConcurrencyDebug itself. The checker's own frames are dropped before marking;
    /// what is left of it at the top (`QueueConfined.value`) is the runtime's.
    private static var ownLibrary: Library {
        Library(sourceDirectory: directory(of: #filePath), modulePrefix: "ConcurrencyDebug.")
    }

    /// The package's helpers (`LockedValue` holds a lock around a runtime operation).
    private static var helpersLibrary: Library {
        Library(sourceDirectory: directory(of: HelpersSource.filePath), modulePrefix: "CtxdebugHelpers.")
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
        var afterWrapper = false
        while index < marked.count {
            let frame = marked[index]
            if isLibraryFrame(frame, libraries) || isGlue(frame) {
                if frame.function?.contains("(_enclosingInstance: ") == true { afterWrapper = true }
            } else if afterWrapper, isAccessor(frame) {
                // The wrapped property's synthesized accessor: plumbing, in the user's
                // file but not the user's access.
                afterWrapper = false
            } else {
                break
            }
            marked[index].isRuntime = true
            index += 1
        }
        return index == marked.count ? frames : marked
    }

    static func isLibraryFrame(_ frame: StackFrame, _ libraries: [Library]) -> Bool {
        // A thunk's file is "/<compiler-generated>": its function says whose it is.
        if let file = frame.file, file.hasPrefix("/"), !file.hasSuffix("<compiler-generated>") {
            return libraries.contains { file.hasPrefix($0.sourceDirectory) }
        }
        guard let function = frame.function else { return false }
        let name = baseName(function)
        return libraries.contains { name.hasPrefix($0.modulePrefix) }
    }

    /// A frame that only passes a call on, between two frames of a library: a
    /// compiler-made thunk, or `Result(catching:)` around a library's closure.
    static func isGlue(_ frame: StackFrame) -> Bool {
        guard let function = frame.function else { return false }
        let name = baseName(function)
        return name.hasPrefix("reabstraction thunk helper ") || name.hasPrefix("Swift.Result") && name.contains(".init(catching:")
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
        for prefix in ["merged ", "static ", "generic specialization ", "function signature specialization "] {
            if name.hasPrefix(prefix) {
                name.removeFirst(prefix.count)
                if let of = name.range(of: "> of ") { name = String(name[of.upperBound...]) }
            }
        }
        if name.hasPrefix("static ") { name.removeFirst("static ".count) }
        // Compiler-made frames (no line of their own) belong to the function they wrap:
        // "partial apply forwarder for closure #1 () -> … in ManagedContext.X.y(…)".
        if name.hasPrefix("partial apply forwarder for ") { name.removeFirst("partial apply forwarder for ".count) }
        // "(extension in Swift):Swift.Result…": the module's extension, named by its type.
        if name.hasPrefix("(extension in "), let close = name.range(of: "):") { name = String(name[close.upperBound...]) }
        // "closure #1 … in closure #2 … in X.y(…)": the function the closures are in.
        while name.hasPrefix("closure #") || name.hasPrefix("implicit closure #"), let enclosing = name.range(of: " in ") {
            name = String(name[enclosing.upperBound...])
            if name.hasPrefix("static ") { name.removeFirst("static ".count) }
            if name.hasPrefix("(extension in "), let close = name.range(of: "):") { name = String(name[close.upperBound...]) }
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
