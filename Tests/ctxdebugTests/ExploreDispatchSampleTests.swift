import Foundation
import Testing
import TestSupport

/// Plain dispatch and `QueueConfined`, explorable without Core Data (issue 47): the BUILT
/// `ctxdebug-explore-dispatch-sample` (Tests/ExploreDispatchSample, which links no
/// runtime and makes no context) runs the in-process `explore { }` over two
/// `DispatchQueue.async` blocks, with the preload library in its `LD_PRELOAD` as
/// `ctxdebug explore` would put it (docs/explore.md, "In a test").
@Suite("The in-process explore on plain dispatch, no context (built sample, preload library)")
struct ExploreDispatchSampleTests {
    static func run(_ mode: String) throws -> CommandRun {
        let library = CLI.productsDirectory.appendingPathComponent("libCtxdebugDispatchControl.so").path
        try #require(FileManager.default.fileExists(atPath: library), "\(library) is not built: `swift build --build-tests` builds it")
        return try CLI.run(try CLI.product("ctxdebug-explore-dispatch-sample"), [mode], environment: ["LD_PRELOAD": library])
    }

    @Test("a QueueConfined value read by a block of another queue is found as a violation, and replays")
    func misuseIsFound() throws {
        let run = try Self.run("misuse")
        #expect(run.status == 1, "\(run)")
        #expect(run.stdout.contains("kind=violation replays=3 of 3\n"), "\(run.stdout)")
        // The report names the value, its owner and the queue that touched it.
        #expect(run.stdout.contains("'counter'"), "\(run.stdout)")
        #expect(run.stdout.contains("sample.owner") && run.stdout.contains("sample.other"), "\(run.stdout)")
        // The blocks were the run's: their starts are steps of the schedule.
        #expect(run.stdout.contains("dispatch-async"), "\(run.stdout)")
    }

    @Test("its twin (both blocks on the value's queue) passes every schedule of at most 2 deviations, and there is more than one")
    func twinPasses() throws {
        let run = try Self.run("twin")
        #expect(run.status == 0, "\(run)")
        let line = run.stdout.split(separator: "\n").first.map(String.init) ?? ""
        #expect(line.hasSuffix(" exhausted=true"), "\(run.stdout)")
        // Without control of the two asyncs there would be no point to choose at: one schedule.
        let schedules = Int(line.dropFirst("schedules=".count).prefix { $0.isNumber }) ?? 0
        #expect(schedules > 1, "\(run.stdout)")
    }

    /// A block held back by the schedule keeps its queue alive, as libdispatch's own
    /// `async` does: a queue released right after its `async` (a temporary) was freed
    /// before its block started, and the start crashed.
    @Test("a block sent to a queue released at once still runs on its queue, in every schedule")
    func temporaryQueueOutlivesItsBlock() throws {
        let run = try Self.run("temporary")
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.hasPrefix("schedules=30 "), "\(run.stdout)")
    }
}
