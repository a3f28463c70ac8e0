import ConcurrencyDebug
import Foundation
import Testing
import TestSupport

/// What scripts rely on in the CLI as a whole: the variables `--help` lists, the exit
/// statuses in one table, report files written whole, and no test-only command in the
/// shipped binary.
@Suite struct CLIContractTests {
    /// `ctxdebug --help` prints the configuration's table: every variable, with its line.
    @Test func helpListsEveryVariableOfTheTable() throws {
        let run = try CLI.ctxdebug(["--help"])
        #expect(run.status == 0, "\(run)")
        for variable in ConcurrencyDebug.Variable.all {
            #expect(run.stdout.contains("\(variable.name)=\(variable.placeholder)"), "\(variable.name) missing from --help")
            #expect(run.stdout.contains(variable.help), "\(variable.name)'s help line missing from --help")
        }
    }

    /// No command spells a status: every number is in Sources/ctxdebug/ExitStatus.swift.
    @Test func everyExitStatusIsInTheTable() throws {
        let directory = CLI.packageRoot.appendingPathComponent("Sources/ctxdebug")
        // A status made from a number, ended with one, or kept as a numbered constant.
        let spelled = try #require(try? Regex(#"ExitCode\(\s*-?[0-9]|exit\(\s*-?[0-9]|static let \w+\s*(:\s*Int32\s*)?=\s*-?[0-9]"#))
        var offenders: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
        where name.hasSuffix(".swift") && name != "ExitStatus.swift" {
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains(spelled) {
                offenders.append("\(name):\(n + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(offenders.isEmpty, "name the status in ExitStatus.swift: \(offenders)")
    }

    /// The crash-safety writer is a test-only executable beside the tests, not a command.
    @Test func theStressWriterIsNotInTheShippedBinary() throws {
        let run = try CLI.ctxdebug(["stress-writer", "--store", "/nonexistent/x.sqlite"])
        #expect(run.status == 64, "\(run)")
        let help = try CLI.ctxdebug(["help", "stress-writer"])
        #expect(!help.stdout.contains("acknowledging each save"), "\(help)")
        let writer = try CLI.run(try CLI.product("ctxdebug-stress-writer"), ["--help"])
        #expect(writer.status == 0 && writer.stdout.contains("--store"), "\(writer)")
    }

    /// `--junit`, `--sarif` and `--json` replace a file whole (a new file renamed over the
    /// old one), never rewrite it in place: a hard link to the old file keeps the old bytes.
    @Test func checkReplacesReportFilesWhole() throws {
        let directory = try temporaryDirectory("check-report-files")
        defer { try? FileManager.default.removeItem(at: directory) }
        var paths: [String: String] = [:]
        for flag in ["--junit", "--sarif", "--json"] {
            let path = directory.appendingPathComponent("report\(flag)").path
            try Data("old".utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.linkItem(atPath: path, toPath: path + ".old")
            paths[flag] = path
        }
        let run = try CLI.ctxdebug(["check"] + paths.flatMap { [$0.key, $0.value] } + ["--", "/bin/true"])
        #expect(run.status == 0, "\(run)")
        for (flag, path) in paths {
            #expect(try String(contentsOfFile: path + ".old", encoding: .utf8) == "old", "\(flag) was rewritten in place")
            #expect(try String(contentsOfFile: path, encoding: .utf8).count > 20, "\(flag) was not written")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") }
        #expect(left.isEmpty, "temporary files left: \(left)")
    }

    /// One option group (`ReportFileOptions`): check, explore and lint take `--junit`,
    /// `--sarif` and `--json` alike, and refuse a path that cannot be written before
    /// they run anything (status 64, the flag and the reason named).
    @Test func reportFileFlagsAreOneOptionGroup() throws {
        for command in ["check", "explore", "lint"] {
            let help = try CLI.ctxdebug([command, "--help"])
            for flag in ["--junit <file>", "--sarif <file>", "--json <file>"] {
                #expect(help.stdout.contains(flag), "ctxdebug \(command) --help lacks \(flag)")
            }
            let rest = command == "lint" ? ["."] : ["--", "/bin/true"]
            let bad = try CLI.ctxdebug([command, "--json", "/nonexistent-ctxdebug-dir/r.json"] + rest)
            #expect(bad.status == 64, "ctxdebug \(command): \(bad)")
            #expect(
                bad.stderr.contains("--json /nonexistent-ctxdebug-dir/r.json: the directory /nonexistent-ctxdebug-dir does not exist"),
                "ctxdebug \(command): \(bad.stderr)")
        }
    }
}
