import Foundation

/// The preload library that puts libdispatch under the scheduler's control in the
/// processes `ctxdebug explore` runs (Sources/CtxdebugDispatchControl): built with the
/// package (`swift build --build-tests`; `Scripts/ctxdebug` builds it with the release
/// ctxdebug), and looked for beside the ctxdebug binary that runs.
///
/// Without it, `ctxdebug explore` stops before it runs COMMAND (`ExitStatus.exploreLibraryMissing`),
/// unless `--allow-uncontrolled` asks to explore with libdispatch uncontrolled.
enum DispatchControlLibrary {
    static let fileName = "libCtxdebugDispatchControl.so"
    static let productName = "CtxdebugDispatchControl"

    /// The directory of the running ctxdebug, symlinks resolved (`.build/release` is one).
    static let binaryDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()

    /// Where the library must be: beside the ctxdebug binary.
    static let expectedPath = binaryDirectory.appendingPathComponent(fileName).path

    static var isBuilt: Bool { FileManager.default.fileExists(atPath: expectedPath) }

    /// Its path, or nil when it was not built: then only the runtime's own points are
    /// controlled, and `explore` (run with `--allow-uncontrolled`) says so once.
    static let path: String? = {
        if isBuilt { return expectedPath }
        say(
            "ctxdebug explore: \(expectedPath) is missing, so libdispatch is not controlled (main-queue hops, groups, semaphores, "
                + "timers and tasks run unexplored, and a hang may be one a real run cannot have): exploring without it, as "
                + "--allow-uncontrolled asks. Build it with \(buildAdvice(binaryDirectory: binaryDirectory)).")
        return nil
    }()

    /// Why `ctxdebug explore` stops when the library is missing: what is missing, where
    /// it looked, what it is for, the command that builds it, and the flag that goes on without it.
    static func missingMessage() -> String {
        """
        explore's preload library is not built: \(expectedPath) is missing (it is looked for beside the ctxdebug binary). \
        It puts libdispatch under the scheduler's control in COMMAND's processes; without it, main-queue hops, groups, \
        semaphores, timers and tasks run unexplored, and explore reports hangs and failures that a real run cannot have. \
        Nothing was run. Build it with \(buildAdvice(binaryDirectory: binaryDirectory)), \
        or pass --allow-uncontrolled to explore without it (libdispatch uncontrolled, the schedules not reproducible).
        """
    }

    /// The command that builds the library beside a ctxdebug in `binaryDirectory`, in
    /// backticks, when that is SwiftPM's layout (`ROOT/SCRATCH/TRIPLE/CONFIGURATION`,
    /// with ROOT's Package.swift); else what to build and where to put it.
    static func buildAdvice(binaryDirectory: URL) -> String {
        let configuration = binaryDirectory.lastPathComponent
        let scratch = binaryDirectory.deletingLastPathComponent().deletingLastPathComponent()
        let root = scratch.deletingLastPathComponent()
        let isPackage = FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path)
        guard ["debug", "release"].contains(configuration), isPackage else {
            return "`swift build --disable-build-manifest-caching -c release --product \(productName)` in the ctxdebug package "
                + "(with the -c this ctxdebug was built with), then copy \(fileName) from that build's directory into "
                + binaryDirectory.path
        }
        var words = ["swift", "build", "--disable-build-manifest-caching", "--package-path", root.path]
        if scratch.lastPathComponent != ".build" { words += ["--scratch-path", scratch.path] }
        words += ["-c", configuration, "--product", productName]
        let command = "`" + words.map(ExploreSession.shellQuoted).joined(separator: " ") + "`"
        let script = root.appendingPathComponent("Scripts/ctxdebug").path
        let isScriptsBuild = configuration == "release" && scratch.lastPathComponent == ".build"
        guard isScriptsBuild, FileManager.default.isExecutableFile(atPath: script) else { return command }
        return command + " (\(script), the README's command, builds it with ctxdebug)"
    }
}
