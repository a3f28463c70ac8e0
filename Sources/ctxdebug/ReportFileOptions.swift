import ArgumentParser
import Foundation

/// The report files `ctxdebug check`, `ctxdebug explore` and `ctxdebug lint` write after
/// their run: one option group, so the three commands spell, check and write them alike.
/// Each command's --help says what its files hold.
struct ReportFileOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Write the report as JUnit XML to FILE.", valueName: "file"))
    var junit: String?

    @Option(help: ArgumentHelp("Write the report as SARIF 2.1.0 to FILE.", valueName: "file"))
    var sarif: String?

    @Option(help: ArgumentHelp("Write the report as JSON to FILE.", valueName: "file"))
    var json: String?

    /// The files asked for, each with its flag, in the order they are written.
    var requested: [(flag: String, path: String)] {
        [("--junit", junit), ("--sarif", sarif), ("--json", json)].compactMap { flag, path in path.map { (flag, $0) } }
    }

    /// A file that cannot be written fails the command before it runs, so that a long
    /// run does not end in a lost report.
    func validate() throws {
        for (flag, path) in requested {
            if let problem = Self.writeProblem(path) { throw ValidationError("\(flag) \(path): \(problem)") }
        }
    }

    /// Why `path` cannot be written, or nil when it can.
    static func writeProblem(_ path: String) -> String? {
        if path.isEmpty { return "an empty path" }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return "is a directory" }
            return access(path, W_OK) == 0 ? nil : "cannot be written (\(String(cString: strerror(errno))))"
        }
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if !FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory) || !isDirectory.boolValue {
            return "the directory \(parent) does not exist"
        }
        return access(parent, W_OK) == 0 ? nil : "the directory \(parent) cannot be written (\(String(cString: strerror(errno))))"
    }

    /// What goes in each file; only the ones asked for are made.
    struct Contents {
        var junit: () throws -> Data
        var sarif: () throws -> Data
        var json: () throws -> Data
    }

    /// Writes each file asked for, whole or not at all (`ReportFile`), and tells `note`
    /// about each: `ctxdebug check: wrote --junit PATH`, or why it could not be written.
    /// True when one could not be written (the commands then exit 73).
    func write(_ contents: Contents, command: String, note: (String) -> Void) -> Bool {
        var failed = false
        for (flag, path) in requested {
            let make = flag == "--junit" ? contents.junit : flag == "--sarif" ? contents.sarif : contents.json
            do {
                try ReportFile.write(make(), to: path)
                note("ctxdebug \(command): wrote \(flag) \(path)")
            } catch {
                note("ctxdebug \(command): error: could not write \(flag) \(path): \(error)")
                failed = true
            }
        }
        return failed
    }
}
