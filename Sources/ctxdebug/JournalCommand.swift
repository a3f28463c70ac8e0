import ArgumentParser
@_spi(Runtime) import ConcurrencyDebug
import CtxdebugHelpers
import Foundation
@_spi(Runtime) import ManagedContext
import ReportFormats
import Reports

/// `ctxdebug journal stats|dump|violations FILE`: reads an access journal.
struct JournalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal",
        abstract: "Read an access journal (written with CTXDEBUG_JOURNAL=path or CTXDEBUG_CONCURRENCY=3).",
        discussion: """
            A journal records every checked access: when, which thread, the queue that ran \
            and the queue that owns what was touched, the context, entity, attribute, object, \
            operation, and whether it was allowed. The format is in docs/journal-format.md.

            The reader keeps every complete block whose checksum holds. A block cut short at \
            the end (the writer was killed) is reported on stderr and is not an error; a block \
            whose checksum fails is dropped, reported, and makes the exit status 3.

            --trace FILE (with any subcommand) also writes the journal as a timeline in the \
            Chrome Trace Event Format, for ui.perfetto.dev: a track per thread, a slice per \
            run of accesses on one queue, an instant per access and per violation \
            (docs/reports.md).

            Exit status:
              0   read; at most a cut tail
              1   the file cannot be read (missing, permissions)
              2   the file is not a ctxdebug journal, or of a newer format version
              3   read, but some blocks are corrupt (their events are left out)
              73  the --trace file cannot be written
              64  usage error
            """,
        subcommands: [Stats.self, Dump.self, Violations.self]
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    struct Options: ParsableArguments {
        @Argument(help: ArgumentHelp("The journal file to read.", valueName: "file"))
        var file: String

        @Option(help: "Output format: text or json.")
        var format: Format = .text

        @Option(help: ArgumentHelp("Also write the journal as a Chrome trace (ui.perfetto.dev) to FILE.", valueName: "FILE"))
        var trace: String?
    }

    static let cannotRead = ExitStatus.journalUnreadable.exitCode
    static let notAJournal = ExitStatus.notAJournal.exitCode
    static let corrupt = ExitStatus.corruptJournal.exitCode

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print counts: sessions, blocks, events, violations, threads, bytes per event, problems.")

        @OptionGroup var options: Options

        func run() throws {
            let reader = try JournalCommand.open(options.file)
            try JournalCommand.writeTrace(reader, to: options.trace)
            let journal = AccessJournalContents(reader)
            switch options.format {
            case .json: FileHandle.standardOutput.write(try AccessJournalReport.statsJSON(journal))
            case .text: print(AccessJournalReport.statsText(journal))
            }
            try JournalCommand.finish(reader)
        }
    }

    struct Dump: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print every event, block by block (each block is one thread's events in time order).")

        @OptionGroup var options: Options

        func run() throws {
            let reader = try JournalCommand.open(options.file)
            try JournalCommand.writeTrace(reader, to: options.trace)
            try JournalCommand.printEvents(reader, format: options.format, violationsOnly: false)
            try JournalCommand.finish(reader)
        }
    }

    struct Violations: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print only the accesses that were violations (not allowed).")

        @OptionGroup var options: Options

        func run() throws {
            let reader = try JournalCommand.open(options.file)
            try JournalCommand.writeTrace(reader, to: options.trace)
            try JournalCommand.printEvents(reader, format: options.format, violationsOnly: true)
            try JournalCommand.finish(reader)
        }
    }

    // MARK: Shared

    static func open(_ path: String) throws -> AccessJournalReader {
        // A version-1 journal holds no operation names: ManagedContext's name its numbers.
        ManagedContextOperations.register()
        do {
            return try AccessJournalReader(path: path)
        } catch {
            printError("error: \(error.description)")
            switch error.code {
            case .cannotAccess: throw cannotRead
            case .notAJournal, .unsupportedVersion: throw notAJournal
            }
        }
    }

    /// Writes the trace of `reader` to `path` (under a temporary name, then renamed).
    static func writeTrace(_ reader: AccessJournalReader, to path: String?) throws {
        guard let path else { return }
        do {
            try ReportFile.write(ChromeTrace.render(journal: AccessJournalContents(reader)), to: path)
        } catch {
            printError("error: cannot write the trace to \(path): \(error)")
            throw cannotWrite
        }
    }

    static let cannotWrite = ExitStatus.cannotCreate.exitCode

    /// Reports the problems on stderr, and exits 3 when a block was corrupt.
    static func finish(_ reader: AccessJournalReader) throws {
        for problem in reader.problems {
            let severity = problem.kind == .cutTail ? "note" : "error"
            printError("\(severity): \(reader.path): \(problem)")
        }
        if !reader.isIntact { throw corrupt }
    }

    static func printError(_ message: String) {
        say("ctxdebug journal: \(message)")
    }

    static func printEvents(_ reader: AccessJournalReader, format: Format, violationsOnly: Bool) throws {
        let journal = AccessJournalContents(reader)
        switch format {
        case .json:
            FileHandle.standardOutput.write(try AccessJournalReport.eventsJSON(journal, violationsOnly: violationsOnly))
        case .text:
            AccessJournalReport.writeEventsText(journal, violationsOnly: violationsOnly) { text in
                FileHandle.standardOutput.write(Data(text.utf8))
            }
        }
    }
}

extension AccessJournalContents {
    /// What the reports read of a journal that `reader` read.
    init(_ reader: AccessJournalReader) {
        let names = (0...Int(UInt8.max)).map { reader.name(of: AccessOperation(rawValue: UInt8($0))) }
        self.init(
            path: reader.path,
            sessions: reader.sessions.map { Session(pid: $0.pid, startWallNanos: $0.startWallNanos) },
            queueLabels: Dictionary(uniqueKeysWithValues: reader.queueLabels.map { ($0.key.rawValue, $0.value) }),
            threadNames: reader.threadNames,
            problems: reader.problems.map {
                Problem(kind: $0.kind.rawValue, offset: $0.offset, length: $0.length, detail: $0.detail, description: $0.description)
            },
            stats: reader.stats,
            forEachEvent: { body in
                reader.forEachEvent { event in
                    body(
                        Event(
                            time: event.time, pid: event.pid, thread: event.thread, current: event.current.rawValue,
                            owner: event.owner.rawValue, context: event.context, subject: event.subject, member: event.member,
                            instance: event.instance, operation: names[Int(event.operation.rawValue)], allowed: event.allowed))
                }
            })
    }
}
