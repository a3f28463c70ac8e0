import Foundation
import Testing
import TestSupport

/// `ctxdebug explore`'s setup (issue 50, item 1): the preload library it loads into
/// COMMAND (libCtxdebugDispatchControl.so, looked for beside the binary), and the
/// README's command, `Scripts/ctxdebug`, that builds it with the CLI. The built
/// `ctxdebug` runs from a directory of its own (a hard link, so /proc/self/exe names
/// that directory), where no library is, as a release build of the CLI alone left it.
@Suite("ctxdebug explore's setup (its preload library, Scripts/ctxdebug)")
struct ExploreSetupTests {
    /// The built `ctxdebug` at `directory/relativePath`, without the library beside it.
    static func ctxdebugAlone(in directory: TempDirectory, at relativePath: String = "bin/ctxdebug") throws -> String {
        let target = directory.file(relativePath)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        let built = try CLI.ctxdebugPath()
        do { try FileManager.default.linkItem(atPath: built, toPath: target.path) } catch {
            try FileManager.default.copyItem(atPath: built, toPath: target.path)
        }
        return target.path
    }

    /// A COMMAND that leaves `marker` behind when it is started, then runs `then` (if any).
    static func marking(_ marker: URL, then command: [String] = []) -> [String] {
        ["/bin/sh", "-c", #"touch "$1"; shift; [ $# -eq 0 ] || exec "$@""#, "sh", marker.path] + command
    }

    @Test("without its library, explore exits 69 before it runs COMMAND, saying what is missing, where, and how to build it")
    func withoutTheLibraryNothingRuns() throws {
        let directory = TempDirectory("explore-no-library")
        let ctxdebug = try Self.ctxdebugAlone(in: directory)
        let marker = directory.file("started")
        for extra in [["--iterations", "3"], ["--replay", directory.file("none.schedule.json").path]] {
            let run = try CLI.run(ctxdebug, ["explore"] + extra + ["--"] + Self.marking(marker), in: directory.url)
            #expect(run.status == 69, "\(extra): \(run)")
            #expect(!FileManager.default.fileExists(atPath: marker.path), "COMMAND was started: \(run)")
            let expected = directory.file("bin/libCtxdebugDispatchControl.so").resolvingSymlinksInPath().path
            for words in [
                "ctxdebug: error: explore's preload library is not built", "\(expected) is missing", "beside the ctxdebug binary",
                "Nothing was run", "--product CtxdebugDispatchControl", "copy libCtxdebugDispatchControl.so", "--allow-uncontrolled",
            ] {
                #expect(run.stderr.contains(words), "\(words): \(run.stderr)")
            }
            #expect(run.stdout.isEmpty, "\(run)")
        }
    }

    /// In SwiftPM's layout (ROOT/.build/TRIPLE/release, as Scripts/ctxdebug builds it),
    /// the message gives the one command that builds the library there.
    @Test("in a package's build directory, the message gives the exact swift build command, and names Scripts/ctxdebug")
    func theMessageGivesTheBuildCommand() throws {
        let directory = TempDirectory("explore-no-library-layout")
        let root = directory.url.resolvingSymlinksInPath()
        try Data().write(to: root.appendingPathComponent("Package.swift"))
        try FileManager.default.createDirectory(at: root.appendingPathComponent("Scripts"), withIntermediateDirectories: true)
        let script = root.appendingPathComponent("Scripts/ctxdebug")
        try Data("#!/bin/sh\n".utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let ctxdebug = try Self.ctxdebugAlone(in: directory, at: ".build/x86_64-unknown-linux-gnu/release/ctxdebug")
        let marker = directory.file("started")
        let run = try CLI.run(ctxdebug, ["explore", "--"] + Self.marking(marker), in: directory.url)
        #expect(run.status == 69, "\(run)")
        #expect(!FileManager.default.fileExists(atPath: marker.path), "COMMAND was started: \(run)")
        let command = "`swift build --disable-build-manifest-caching --package-path \(root.path) -c release --product CtxdebugDispatchControl`"
        #expect(run.stderr.contains("Build it with \(command) (\(script.path), the README's command, builds it with ctxdebug)"), "\(run.stderr)")
        let scratch = TempDirectory("explore-no-library-scratch")
        try Data().write(to: scratch.file("Package.swift"))
        let debug = try Self.ctxdebugAlone(in: scratch, at: ".build-other/x86_64-unknown-linux-gnu/debug/ctxdebug")
        let other = try CLI.run(debug, ["explore", "--"] + Self.marking(marker), in: scratch.url)
        let scratchRoot = scratch.url.resolvingSymlinksInPath().path
        #expect(other.status == 69, "\(other)")
        #expect(
            other.stderr.contains(
                "`swift build --disable-build-manifest-caching --package-path \(scratchRoot) --scratch-path \(scratchRoot)/.build-other -c debug --product CtxdebugDispatchControl`"),
            "\(other.stderr)")
    }

    /// `--allow-uncontrolled` is the degraded mode: COMMAND runs with libdispatch
    /// uncontrolled, as before the library was required, and one line says so.
    @Test("with --allow-uncontrolled, explore runs without its library and says so in one line")
    func allowUncontrolledRunsWithoutTheLibrary() throws {
        let directory = TempDirectory("explore-no-library-allowed")
        let ctxdebug = try Self.ctxdebugAlone(in: directory)
        let marker = directory.file("started")
        let command = Self.marking(marker, then: [try ExploreCommandTests.fakeChild(), "pass"])
        let run = try CLI.run(
            ctxdebug, ["explore", "--allow-uncontrolled", "--iterations", "2", "--schedule-dir", "s", "--"] + command, in: directory.url)
        #expect(run.status == 0, "\(run)")
        #expect(FileManager.default.fileExists(atPath: marker.path), "COMMAND was not started: \(run)")
        #expect(run.stdout.contains("no failure in 2 schedules"), "\(run.stdout)")
        let warnings = run.stderr.split(separator: "\n").filter { $0.contains("is missing, so libdispatch is not controlled") }
        #expect(warnings.count == 1, "\(run.stderr)")
        #expect(warnings.first?.contains("--product CtxdebugDispatchControl") == true, "\(run.stderr)")
    }

    /// With the library beside it (the products directory), explore runs as it did.
    @Test("with its library beside it, explore runs COMMAND")
    func withTheLibraryItRuns() throws {
        try ExploreAppCorpusTests.requireLibrary()
        let directory = TempDirectory("explore-library")
        let marker = directory.file("started")
        let command = Self.marking(marker, then: [try ExploreCommandTests.fakeChild(), "pass"])
        let run = try CLI.ctxdebug(["explore", "--iterations", "2", "--schedule-dir", "s", "--"] + command, in: directory.url)
        #expect(run.status == 0, "\(run)")
        #expect(FileManager.default.fileExists(atPath: marker.path), "\(run)")
        #expect(!run.stderr.contains("is missing"), "\(run.stderr)")
    }
}

/// The README's command, `Scripts/ctxdebug`, run as it is, in a copy of the package's
/// layout with a stand-in `swift` first on PATH (a release build takes minutes): it
/// builds the CLI and explore's preload library in release, says nothing when they
/// build, shows the log and what failed when one does not, then runs the built ctxdebug.
@Suite("Scripts/ctxdebug (with a stand-in swift)")
struct CtxdebugScriptTests {
    /// The stand-in: logs its arguments, fails for the product in FAKE_SWIFT_FAIL, and
    /// for `--product ctxdebug` leaves a `ctxdebug` in .build/release that echoes its own.
    static let fakeSwift = #"""
        #!/bin/sh
        echo "$*" >>"$FAKE_SWIFT_LOG"
        root=""; product=""
        while [ $# -gt 0 ]; do
          case "$1" in --package-path) root="$2"; shift ;; --product) product="$2"; shift ;; esac
          shift
        done
        echo "Compiling $product"
        if [ "$product" = "${FAKE_SWIFT_FAIL:-}" ]; then echo "error: $product does not build"; exit 1; fi
        if [ "$product" = ctxdebug ]; then
          mkdir -p "$root/.build/release"
          printf '#!/bin/sh\necho "ctxdebug ran: $*"\n' >"$root/.build/release/ctxdebug"
          chmod +x "$root/.build/release/ctxdebug"
        fi
        """#

    /// A package root with the real Scripts/ctxdebug, a bootstrap with nothing to
    /// install, and the stand-in swift in bin/.
    static func layout(_ directory: TempDirectory) throws -> (script: String, environment: [String: String]) {
        let scripts = directory.file("pkg/Scripts")
        let bin = directory.file("bin")
        for folder in [scripts, bin] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        try FileManager.default.copyItem(
            at: CLI.packageRoot.appendingPathComponent("Scripts/ctxdebug"), to: scripts.appendingPathComponent("ctxdebug"))
        for (file, text) in [(scripts.appendingPathComponent("bootstrap"), "#!/bin/sh\nexit 0\n"), (bin.appendingPathComponent("swift"), fakeSwift)] {
            try Data(text.utf8).write(to: file)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path)
        }
        let path = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        return (scripts.appendingPathComponent("ctxdebug").path, ["PATH": path, "FAKE_SWIFT_LOG": directory.file("swift.log").path])
    }

    @Test("builds ctxdebug and its preload library in release, quietly, then runs ctxdebug with the arguments")
    func buildsBothProducts() throws {
        let directory = TempDirectory("ctxdebug-script")
        let (script, environment) = try Self.layout(directory)
        let run = try CLI.run(script, ["explore", "--help"], environment: environment, in: directory.url)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == "ctxdebug ran: explore --help\n", "\(run.stdout)")
        #expect(run.stderr.isEmpty, "quiet on success: \(run.stderr)")
        let builds = try String(contentsOf: directory.file("swift.log"), encoding: .utf8).split(separator: "\n").map(String.init)
        let root = directory.file("pkg").path  // as the script's `pwd` spells it
        let common = "build --disable-build-manifest-caching -c release --package-path \(root) --product"
        #expect(builds == ["\(common) ctxdebug", "\(common) CtxdebugDispatchControl"], "\(builds)")
    }

    @Test("a product that does not build: the log and which build failed on stderr, status 1, ctxdebug not run")
    func aFailedBuildSaysWhich() throws {
        let directory = TempDirectory("ctxdebug-script-failing")
        var (script, environment) = try Self.layout(directory)
        environment["FAKE_SWIFT_FAIL"] = "CtxdebugDispatchControl"
        let run = try CLI.run(script, ["explore", "--help"], environment: environment, in: directory.url)
        #expect(run.status == 1, "\(run)")
        #expect(run.stdout.isEmpty, "ctxdebug must not run: \(run.stdout)")
        #expect(run.stderr.contains("error: CtxdebugDispatchControl does not build"), "\(run.stderr)")
        #expect(
            run.stderr.hasSuffix("Scripts/ctxdebug: the release build of explore's preload library (CtxdebugDispatchControl) failed (log above).\n"),
            "\(run.stderr)")
    }

    /// The opt-in run of the README's own command from a fresh clone (issue 50's
    /// acceptance): `RELIABILITY_EXPLORE_README_SETUP=1` clones this package's committed
    /// HEAD into a scratch directory (`=DIR`: uses the clone at DIR as it is, say one
    /// made by hand with `git clone`), builds the XCTest sample there
    /// (Tests/ExploreXCTestSample, app-style XCTest methods run as `swift test` runs
    /// them) and runs the clone's `Scripts/ctxdebug explore` on the sample's buggy
    /// method: the bug is found. Then, the library removed, the clone's ctxdebug exits 69
    /// and runs nothing. Off by default: two release builds from nothing take 20 minutes
    /// and more on 2 cores.
    static let readmeSetup = ProcessInfo.processInfo.environment["RELIABILITY_EXPLORE_README_SETUP"] ?? ""

    /// The clone the opt-in run uses: a fresh one in `scratch`, or the one it names.
    static func clone(in scratch: TempDirectory) throws -> URL {
        guard readmeSetup == "1" else { return URL(fileURLWithPath: readmeSetup) }
        let clone = scratch.file("ctxdebug")
        let cloned = try CLI.run(try #require(CLI.which("git")), ["clone", "--quiet", CLI.packageRoot.path, clone.path], timeout: nil)
        try #require(cloned.status == 0, "\(cloned)")
        return clone
    }

    @Test(
        "a fresh clone's Scripts/ctxdebug explore finds an XCTest method's bug; without the library it exits 69 (opt-in)",
        .enabled(if: !readmeSetup.isEmpty))
    func theReadmeCommandFromAFreshClone() throws {
        let scratch = TempDirectory("explore-readme-clone")
        let clone = try Self.clone(in: scratch)
        let sample = try CLI.run(
            try #require(CLI.which("swift")),
            ["build", "--disable-build-manifest-caching", "--package-path", clone.path, "-c", "release", "--product", "ctxdebug-explore-xctest-sample"],
            timeout: nil)
        try #require(sample.status == 0, "\(sample.stdout)\(sample.stderr)")
        let release = clone.appendingPathComponent(".build/release")
        let method = "ctxdebug_explore_xctest_sample.NoteListTests/testListShowsImportedNotes"
        let run = try CLI.run(
            clone.appendingPathComponent("Scripts/ctxdebug").path,
            ["explore", "--seed", "1", "--iterations", "100", "--schedule-dir", "schedules", "--json", "report.json", "--",
             release.appendingPathComponent("ctxdebug-explore-xctest-sample").path, method],
            in: scratch.url, timeout: nil)
        #expect(run.status == 1, "\(run)")
        #expect(!run.stderr.contains("is missing"), "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: scratch.file("report.json"))) as? [String: Any])
        let failure = try #require(report["failure"] as? [String: Any], "\(run)")
        #expect(failure["kind"] as? String == "assertion", "\(run.stdout)")
        #expect((failure["detail"] as? String)?.contains("XCTAssertEqual failed") == true, "\(failure)")
        #expect(failure["replaysConfirmed"] as? Int == 3, "\(run.stdout)")

        try FileManager.default.removeItem(at: release.appendingPathComponent("libCtxdebugDispatchControl.so"))
        let marker = scratch.file("started")
        let bare = try CLI.run(
            release.appendingPathComponent("ctxdebug").path, ["explore", "--"] + ExploreSetupTests.marking(marker), in: scratch.url)
        #expect(bare.status == 69, "\(bare)")
        #expect(!FileManager.default.fileExists(atPath: marker.path), "COMMAND was started: \(bare)")
        #expect(bare.stderr.contains("--product CtxdebugDispatchControl` (\(clone.path)/Scripts/ctxdebug, the README's command"), "\(bare.stderr)")
    }
}
