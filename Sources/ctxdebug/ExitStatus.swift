import ArgumentParser
import Foundation
import ManagedContext
import Replay
import SurfJournal

/// The one place where the libraries' typed errors become exit statuses and
/// one-line messages (sysexits.h numbers, as docs/ci.md lists them). Libraries
/// report codes; only the CLI knows about statuses.
enum CommandSupport {
    enum Status: Int32 {
        case failure = 1
        case usage = 64
        case dataError = 65
        /// Concurrency violations (ThreadSanitizer's convention), `ctxdebug check`.
        case violations = 66
        /// A part of the tool that is not built (`ctxdebug bench` without ctxdebug-bench).
        case unavailable = 69
        case cannotCreate = 73
        case ioError = 74
    }

    /// Prints "ctxdebug: error: message" on stderr and gives the exit code to throw.
    static func fail(_ message: String, status: Status) -> ExitCode {
        FileHandle.standardError.write(Data("ctxdebug: error: \(message)\n".utf8))
        return ExitCode(status.rawValue)
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

    static func status(of error: ReplayError) -> Status {
        switch error {
        case ReplayError.Code.invalidOptions: .usage
        case ReplayError.Code.badInput: .dataError
        case ReplayError.Code.cannotWrite: .cannotCreate
        default: .failure
        }
    }

    static func status(of error: SurfJournalError) -> Status {
        switch error.code {
        case .outputUnwritable: .cannotCreate
        case .invalidArgument, .store: .failure
        }
    }

    static func status(of error: ManagedContextError) -> Status {
        switch error {
        case ManagedContextError.Code.notAStore, ManagedContextError.Code.corruptStore,
            ManagedContextError.Code.schemaMismatch, ManagedContextError.Code.directoryMissing,
            ManagedContextError.Code.storeOpenFailed, ManagedContextError.Code.seedFailed:
            .dataError
        case ManagedContextError.Code.directoryUnwritable, ManagedContextError.Code.readOnlyStore: .cannotCreate
        default: .ioError
        }
    }
}
