import CtxdebugHelpers
import Foundation

/// Where the CLI writes.
enum Output {
    case standardOutput, standardError
}

/// The one way the CLI prints: `text` then `terminator`, to stderr unless told, in one
/// unbuffered write, so that the lines of stdout and stderr keep their order and a
/// line is out before the process ends.
func say(_ text: String, to stream: Output = .standardError, terminator: String = "\n") {
    say(Data((text + terminator).utf8), to: stream)
}

/// Bytes as they are (a report on stdout).
func say(_ data: Data, to stream: Output) {
    switch stream {
    case .standardOutput: FileHandle.standardOutput.write(data)
    case .standardError: FileHandle.standardError.write(data)
    }
}

/// The one writer of the files the commands write (`--junit`, `--sarif`, `--json`,
/// `--html`, `--trace`, `--output`): whole or not at all, under a temporary name in the
/// same directory then renamed (the helpers' `WholeFile`), so a CI step that reads the
/// file never sees half of it and a failed run leaves an existing file as it was.
enum ReportFile {
    /// Why a file could not be written, in words for a one-line message.
    struct WriteError: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { reason }
    }

    static func write(_ data: Data, to path: String) throws(WriteError) {
        do {
            try WholeFile.write(data, to: path)
        } catch let error as WholeFile.MoveError {
            throw WriteError(path: path, reason: "cannot move the file into place: \(error.reason)")
        } catch {
            throw WriteError(path: path, reason: error.localizedDescription)
        }
    }

    static func write(_ text: String, to path: String) throws(WriteError) {
        try write(Data(text.utf8), to: path)
    }
}
