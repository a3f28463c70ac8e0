import Foundation
import TestSupport
import Testing

/// Every documented way to turn checking on, each tried on a real process
/// (`ctxdebug-wrong-queue-sample`, one wrong-queue access) whose environment holds that
/// switch and no other: the configuration is read from the process, as a user's program
/// reads it, never from a dictionary a test hands it.
@Suite("The switches that turn checking on, in a real process")
struct CheckingSwitchTests {
    static let sample = BuiltProducts.directory.appendingPathComponent("ctxdebug-wrong-queue-sample").path

    static func run(_ arguments: [String] = [], _ environment: [String: String] = [:]) throws -> CommandRun {
        try ChildProcess(sample, arguments, environment: environment).wait(timeout: 120)
    }

    static func expectTrapped(_ run: CommandRun, level: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.signaled && run.status == SIGTRAP, "\(run)", sourceLocation: sourceLocation)
        #expect(run.stderr.contains("concurrency checking on (level \(level)"), "\(run)", sourceLocation: sourceLocation)
        #expect(!run.stdout.contains("done"), "\(run)", sourceLocation: sourceLocation)
    }

    @Test("with no switch the wrong-queue access runs to the end, unchecked")
    func noSwitch() throws {
        let run = try Self.run()
        #expect(run.status == 0 && !run.signaled, "\(run)")
        #expect(run.stdout.contains("done"))
        #expect(!run.stderr.contains("concurrency checking on"))
    }

    @Test("CTXDEBUG_CONCURRENCY=1 traps the access")
    func ctxdebugVariable() throws {
        Self.expectTrapped(try Self.run([], ["CTXDEBUG_CONCURRENCY": "1"]), level: 1)
    }

    /// Core Data's switch as an environment variable, as teams set it in a scheme's
    /// environment or `env com.apple.CoreData.ConcurrencyDebug=1 swift test`
    /// (docs/coredata-on-linux.md). It was read from a dictionary in tests, but never
    /// from the process: `Variable.current()` read only the `CTXDEBUG_*` names.
    @Test("Core Data's environment variable com.apple.CoreData.ConcurrencyDebug=1 traps the access")
    func appleVariable() throws {
        Self.expectTrapped(try Self.run([], ["com.apple.CoreData.ConcurrencyDebug": "1"]), level: 1)
    }

    @Test("com.apple.CoreData.ConcurrencyDebug=0 leaves checking off")
    func appleVariableOff() throws {
        let run = try Self.run([], ["com.apple.CoreData.ConcurrencyDebug": "0"])
        #expect(run.status == 0 && run.stdout.contains("done"), "\(run)")
    }

    @Test("Core Data's launch argument -com.apple.CoreData.ConcurrencyDebug 1 traps the access")
    func launchArgument() throws {
        Self.expectTrapped(try Self.run(["-com.apple.CoreData.ConcurrencyDebug", "1"]), level: 1)
    }

    @Test("CTXDEBUG_CONCURRENCY wins over Core Data's variable: 0 there leaves checking off")
    func ctxdebugVariableWins() throws {
        let run = try Self.run([], ["CTXDEBUG_CONCURRENCY": "0", "com.apple.CoreData.ConcurrencyDebug": "1"])
        #expect(run.status == 0 && run.stdout.contains("done"), "\(run)")
    }

    @Test("CTXDEBUG_JOURNAL alone turns on level 3: the access traps and the journal is written")
    func journalAlone() throws {
        let dir = TempDirectory()
        let journal = dir.file("access.journal").path
        Self.expectTrapped(try Self.run([], ["CTXDEBUG_JOURNAL": journal]), level: 3)
        #expect(FileManager.default.fileExists(atPath: journal))
    }
}
