import ConcurrencyDebug
import Testing

@Suite("Configuration")
struct ConfigurationTests {
    typealias Configuration = ConcurrencyDebug.Configuration

    func read(_ environment: [String: String], arguments: [String] = ["app"]) -> (Configuration, [String]) {
        let (configuration, warnings) = Configuration.read(environment: environment, arguments: arguments, pid: 4242)
        return (configuration, warnings)
    }

    @Test("Nothing set: checking is off, trap is the mode, 66 the exit status")
    func defaults() {
        let (configuration, warnings) = read([:])
        #expect(configuration == Configuration(level: 0, onViolation: .trap, exitCode: 66))
        #expect(warnings.isEmpty)
    }

    @Test("Every valid value is read", arguments: [0, 1, 2, 3])
    func levels(level: Int) {
        let (configuration, warnings) = read(["CTXDEBUG_CONCURRENCY": " \(level) "])
        #expect(configuration.level.rawValue == level)
        #expect(warnings.isEmpty)
        #expect(configuration.accessJournalPath == (level == 3 ? "/tmp/ctxdebug-4242.journal" : nil))
    }

    @Test("Modes, report path, exit code, suppressions, journal")
    func allVariables() {
        let (configuration, warnings) = read([
            "CTXDEBUG_CONCURRENCY": "1", "CTXDEBUG_ON_VIOLATION": "LOG", "CTXDEBUG_REPORT": "/tmp/r.json",
            "CTXDEBUG_EXITCODE": "0", "CTXDEBUG_SUPPRESSIONS": "/tmp/s.txt", "CTXDEBUG_JOURNAL": "/tmp/j-%p.journal",
        ])
        #expect(warnings.isEmpty)
        #expect(configuration.onViolation == .log)
        #expect(configuration.reportPath == "/tmp/r.json")
        #expect(configuration.exitCode == 0)
        #expect(configuration.suppressionsPath == "/tmp/s.txt")
        #expect(configuration.accessJournalPath == "/tmp/j-4242.journal")
        #expect(configuration.level == 1)
        #expect(configuration.banner == "ctxdebug: concurrency checking on (level 1, on violation: log, journal: /tmp/j-4242.journal)")
    }

    @Test("Core Data's launch argument sets the level; the variable wins over it")
    func launchArgument() {
        #expect(read([:], arguments: ["app", "-com.apple.CoreData.ConcurrencyDebug", "1"]).0.level == 1)
        #expect(read([:], arguments: ["app", "-com.apple.CoreData.ConcurrencyDebug", "3"]).0.level == 3)
        #expect(read(["CTXDEBUG_CONCURRENCY": "2"], arguments: ["app", "-com.apple.CoreData.ConcurrencyDebug", "1"]).0.level == 2)
        let (configuration, warnings) = read([:], arguments: ["app", "-com.apple.CoreData.ConcurrencyDebug"])
        #expect(configuration.level == 1)
        #expect(warnings == [
            #"ctxdebug: warning: the launch argument -com.apple.CoreData.ConcurrencyDebug="" is not valid; accepted: 0 (off), 1 (check), 2 (also perform queues), 3 (also journal); using 1."#
        ])
    }

    /// Teams set Core Data's flag as an environment variable too (in a scheme's
    /// Environment Variables or a test script); it turns checking on as the argument does.
    @Test("Core Data's flag as an environment variable sets the level; CTXDEBUG_CONCURRENCY wins over it")
    func appleEnvironmentVariable() {
        #expect(read(["com.apple.CoreData.ConcurrencyDebug": "1"]).0.level == 1)
        #expect(read(["com.apple.CoreData.ConcurrencyDebug": "0"], arguments: ["app", "-com.apple.CoreData.ConcurrencyDebug", "1"]).0.level == 0)
        #expect(read(["CTXDEBUG_CONCURRENCY": "2", "com.apple.CoreData.ConcurrencyDebug": "1"]).0.level == 2)
        let (configuration, warnings) = read(["com.apple.CoreData.ConcurrencyDebug": "yes"])
        #expect(configuration.level == 1)
        #expect(warnings == [
            #"ctxdebug: warning: com.apple.CoreData.ConcurrencyDebug="yes" is not valid; accepted: 0 (off), 1 (check), 2 (also perform queues), 3 (also journal); using 1."#
        ])
    }

    @Test(
        "A bad value gives one warning naming the variable, the value, the accepted values and the fallback",
        arguments: [
            ("CTXDEBUG_CONCURRENCY", "4", "0 (off), 1 (check), 2 (also perform queues), 3 (also journal)", "1"),
            ("CTXDEBUG_CONCURRENCY", "on", "0 (off), 1 (check), 2 (also perform queues), 3 (also journal)", "1"),
            ("CTXDEBUG_ON_VIOLATION", "crash", "trap, report, log", "trap"),
            ("CTXDEBUG_EXITCODE", "256", "an integer from 0 to 255", "66"),
            ("CTXDEBUG_EXITCODE", "sixty", "an integer from 0 to 255", "66"),
            ("CTXDEBUG_REPORT", "", "a file path", "no JSON report"),
            ("CTXDEBUG_SUPPRESSIONS", " ", "a file path", "no suppressions"),
        ])
    func badValues(variable: String, value: String, accepted: String, fallback: String) {
        var environment = ["CTXDEBUG_CONCURRENCY": "1"]
        environment[variable] = value
        let (configuration, warnings) = read(environment)
        #expect(warnings == [
            "ctxdebug: warning: \(variable)=\"\(value)\" is not valid; accepted: \(accepted); using \(fallback)."
        ])
        switch variable {
        case "CTXDEBUG_CONCURRENCY": #expect(configuration.level == 1)
        case "CTXDEBUG_ON_VIOLATION": #expect(configuration.onViolation == .trap)
        case "CTXDEBUG_EXITCODE": #expect(configuration.exitCode == 66)
        case "CTXDEBUG_REPORT": #expect(configuration.reportPath == nil)
        default: #expect(configuration.suppressionsPath == nil)
        }
    }

    @Test("A journal alone turns on level 3; with level 0 it is ignored with a warning")
    func journalAndLevel() {
        #expect(read(["CTXDEBUG_JOURNAL": "/tmp/x.journal"]).0.level == 3)
        let (configuration, warnings) = read(["CTXDEBUG_JOURNAL": "/tmp/x.journal", "CTXDEBUG_CONCURRENCY": "0"])
        #expect(configuration.level == 0)
        #expect(configuration.accessJournalPath == nil)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("CTXDEBUG_JOURNAL is set but checking is off") == true)
        #expect(read(["CTXDEBUG_CONCURRENCY": "3", "TMPDIR": "/var/tmp/"]).0.accessJournalPath == "/var/tmp/ctxdebug-4242.journal")
    }
}
