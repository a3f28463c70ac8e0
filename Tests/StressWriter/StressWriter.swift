import ArgumentParser
import CoreData
import Foundation
import ManagedContext
import SurfJournal

/// `ctxdebug-stress-writer`: a test-only executable (built by `swift build
/// --build-tests`, not part of the shipped `ctxdebug`) for the crash-safety test
/// (Tests/ctxdebugTests/SaveCrashTests.swift, docs/reliability.md). It saves through
/// the runtime in a loop, and acknowledges each save on stdout only after `save()`
/// returned, so a harness that kills it with SIGKILL knows which saves must be in
/// the store.
///
/// Save `n` inserts `--rows` entries with location `w<n>` and height `<k>` (1…rows),
/// and sets the marker entry's (location `marker`) wind to `<n>`, in one save. So
/// after a crash: every `w<n>` group has exactly `--rows` rows, the groups are
/// 1…max with no gap, and the marker says max. It resumes from the store's max on
/// start, so one store survives many kills.
@main
struct StressWriter: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctxdebug-stress-writer",
        abstract: "Save continuously, acknowledging each save on stdout (crash-safety tests).")

    @Option(name: .long, help: ArgumentHelp("The store to write (created if missing).", valueName: "PATH"))
    var store: String

    @Option(name: .long, help: ArgumentHelp("Entries inserted by each save.", valueName: "N"))
    var rows: Int = 3

    @Option(name: .long, help: ArgumentHelp("Stop after this many saves (0: never).", valueName: "N"))
    var saves: Int = 0

    func validate() throws {
        guard (1...1000).contains(rows) else { throw ValidationError("--rows must be 1…1000 (got \(rows)).") }
        guard saves >= 0 else { throw ValidationError("--saves must be 0 or more (got \(saves)).") }
    }

    func run() throws {
        let container: NSPersistentContainer
        do {
            container = try SurfJournal.openContainer(at: URL(fileURLWithPath: store))
        } catch {
            throw Self.fail("cannot open \(store): \(error)")
        }
        let context = container.newBackgroundContext()
        context.name = "stress-writer"
        let rows = self.rows
        let limit = saves
        let failure: (any Error)? = context.performAndWait {
            do {
                let markers = try context.fetch(FetchRequest<JournalEntry>(predicate: .attribute("location", .equal, "marker")))
                var marker: JournalEntry
                if let m = markers.first {
                    marker = m
                } else {
                    marker = JournalEntry(context: context)
                    marker.location = "marker"
                    marker.wind = "0"
                    try context.save()
                }
                var n = Int(marker.wind ?? "0") ?? 0
                Self.say("start \(n)")
                var done = 0
                while limit == 0 || done < limit {
                    n += 1
                    for k in 1...rows {
                        let e = JournalEntry(context: context)
                        e.location = "w\(n)"
                        e.height = "\(k)"
                        e.rating = NSNumber(value: Int16(n % 6))
                    }
                    marker.wind = "\(n)"
                    try context.save()
                    Self.say("ack \(n)")
                    done += 1
                    // Keep memory flat: the saved objects are not needed again.
                    if n % 64 == 0 {
                        context.reset()
                        marker = try context.fetch(FetchRequest<JournalEntry>(predicate: .attribute("location", .equal, "marker")))[0]
                    }
                }
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw Self.fail("cannot save to \(store): \(failure)") }
    }

    /// Says why on stderr; exits 1.
    private static func fail(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("ctxdebug-stress-writer: error: \(message)\n".utf8))
        return ExitCode.failure
    }

    /// One line on stdout with one `write(2)`, so it is out before the next save starts.
    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
