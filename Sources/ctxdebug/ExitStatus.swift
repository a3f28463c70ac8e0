import ArgumentParser
import Foundation
import ManagedContext
import Replay
import SurfJournal

/// Every exit status of `ctxdebug`, in one table (sysexits.h numbers where one fits).
/// The numbers are documented (README.md, docs/ci.md, docs/lint.md,
/// docs/concurrency-debug.md, each command's `--help`) and scripts depend on them:
/// never renumber one. Commands name a status from here; no other file spells a number.
struct ExitStatus: Hashable, Sendable, CustomStringConvertible {
    let code: Int32

    private init(_ code: Int32) { self.code = code }

    // Every command.
    static let success = ExitStatus(0)
    static let failure = ExitStatus(1)
    /// A bad flag or argument (EX_USAGE).
    static let usage = ExitStatus(64)
    /// Bad input: not a store, a workload or sources that cannot be read (EX_DATAERR).
    static let dataError = ExitStatus(65)
    /// A part of the tool that is not built: `ctxdebug bench` without ctxdebug-bench (EX_UNAVAILABLE).
    static let unavailable = ExitStatus(69)
    /// An output file that cannot be created or written (EX_CANTCREAT).
    static let cannotCreate = ExitStatus(73)
    /// A store that fails while it is read or written (EX_IOERR).
    static let ioError = ExitStatus(74)

    // `ctxdebug check`, besides the status of COMMAND itself (`command(exited:)`).
    /// COMMAND passed and at least one violation was found (ThreadSanitizer's convention).
    static let violations = ExitStatus(66)
    /// COMMAND cannot be executed, as a shell says.
    static let cannotExecute = ExitStatus(126)
    /// COMMAND not found, as a shell says.
    static let notFound = ExitStatus(127)
    /// COMMAND's own status: its exit status, or 128 + the signal that killed it.
    static func command(exited status: Int32) -> ExitStatus { ExitStatus(status) }
    static func command(killedBy signal: Int32) -> ExitStatus { ExitStatus(128 + signal) }

    // `ctxdebug lint`.
    /// At least one finding (as a compiler's warnings-as-errors).
    static let findingsFound = ExitStatus(1)
    /// Sources or the baseline cannot be read.
    static let lintInputUnreadable = dataError

    // `ctxdebug explore`, besides `usage`, `unavailable`, `cannotExecute` and `notFound`.
    /// A schedule failed, or a replayed one failed again or diverged (as lint's findings).
    static let scheduleFailed = ExitStatus(1)
    /// The --replay file cannot be read or is not a schedule file.
    static let scheduleUnreadable = dataError
    /// The schedule directory cannot be created or written.
    static let scheduleDirectoryUnwritable = ioError
    /// Its preload library (libCtxdebugDispatchControl.so) is not beside the binary, and
    /// `--allow-uncontrolled` did not ask to go on without it: nothing is run (as `bench`
    /// without ctxdebug-bench).
    static let exploreLibraryMissing = unavailable

    // `ctxdebug journal`.
    static let journalUnreadable = ExitStatus(1)
    /// Not a ctxdebug journal, or a newer format.
    static let notAJournal = ExitStatus(2)
    /// Read, but some blocks were corrupt.
    static let corruptJournal = ExitStatus(3)

    /// What a `run()` throws to end with this status (`success` ends quietly).
    var exitCode: ExitCode { ExitCode(code) }

    /// The status an `ExitCode` thrown by `CommandSupport.fail` stands for.
    init(_ exitCode: ExitCode) { code = exitCode.rawValue }

    /// Ends the process now with this status (the replay's worker thread, which runs
    /// while the main thread is in `dispatchMain()`).
    func endProcess() -> Never { Foundation.exit(code) }

    var description: String { String(code) }
}

/// The one place where the libraries' typed errors become exit statuses and
/// one-line messages. Libraries report codes; only the CLI knows about statuses.
enum CommandSupport {
    /// Prints "ctxdebug: error: message" on stderr and gives the exit code to throw.
    static func fail(_ message: String, status: ExitStatus) -> ExitCode {
        say("ctxdebug: error: \(message)")
        return status.exitCode
    }

    /// The same for an error of the runtime, the SurfJournal layer or the replay.
    static func fail(_ error: any Error, doing what: String) -> ExitCode {
        switch error {
        case let e as ReplayError:
            return fail(e.message, status: status(of: e))
        case let e as SurfJournalError:
            return fail("could not \(what): \(e.message)", status: status(of: e))
        case let e as ManagedContextError:
            return fail("could not \(what): \(e.description)", status: status(of: e))
        default:
            return fail("could not \(what): \(error)", status: .failure)
        }
    }

    static func status(of error: ReplayError) -> ExitStatus {
        switch error {
        case ReplayError.Code.invalidOptions: .usage
        case ReplayError.Code.badInput: .dataError
        case ReplayError.Code.cannotWrite: .cannotCreate
        default: .failure
        }
    }

    static func status(of error: SurfJournalError) -> ExitStatus {
        switch error.code {
        case .outputUnwritable: .cannotCreate
        case .invalidArgument, .store: .failure
        }
    }

    static func status(of error: ManagedContextError) -> ExitStatus {
        switch error {
        case ManagedContextError.Code.notAStore, ManagedContextError.Code.corruptStore,
            ManagedContextError.Code.schemaMismatch, ManagedContextError.Code.directoryMissing,
            ManagedContextError.Code.storeOpenFailed, ManagedContextError.Code.seedFailed, ManagedContextError.Code.migrationFailed,
            ManagedContextError.Code.validationFailed:
            .dataError
        case ManagedContextError.Code.directoryUnwritable, ManagedContextError.Code.readOnlyStore: .cannotCreate
        default: .ioError
        }
    }
}
