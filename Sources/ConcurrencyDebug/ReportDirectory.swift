import CtxdebugHelpers
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A directory that collects the JSON reports of many processes
/// (`CTXDEBUG_REPORT_DIR`): every process in report mode that recorded a violation
/// writes its `ViolationReportFile` there at exit, as a file of its own. That is how
/// `ctxdebug check` gathers the reports of a command's children and grandchildren
/// (`swift test` runs the test bundle in processes of its own, and exit tests start
/// more).
public enum ReportDirectory {
    /// The prefix of the report files in a directory.
    public static let filePrefix = "ctxdebug-report-"
    /// The suffix of the report files in a directory.
    public static let fileSuffix = ".json"

    /// Writes `file` into `directory` under a name no other process uses
    /// (`ctxdebug-report-<pid>-<nanoseconds>-<random>.json`), first to a hidden
    /// temporary name, then renamed, so a reader never sees half a report. Creates
    /// the directory when it is missing. Returns the path written.
    @discardableResult
    public static func write(_ file: ViolationReportFile, to directory: String) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        let stamp = Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
        let name = "\(filePrefix)\(getpid())-\(stamp)-\(UInt32.random(in: 0...UInt32.max))\(fileSuffix)"
        let final = URL(fileURLWithPath: directory).appendingPathComponent(name).path
        try WholeFile.write(to: final, suffix: ".partial") { try file.write(to: $0) }
        return final
    }

    /// Every report in `directory`, in name order, and one message per file that is
    /// not a readable report.
    public static func read(_ directory: String) -> (reports: [ViolationReportFile], problems: [String]) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            return ([], ["cannot list the report directory \(directory)"])
        }
        var reports: [ViolationReportFile] = []
        var problems: [String] = []
        for name in names.sorted() where name.hasPrefix(filePrefix) && name.hasSuffix(fileSuffix) {
            let path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                reports.append(try JSONDecoder().decode(ViolationReportFile.self, from: data))
            } catch {
                problems.append("cannot read the report \(path): \(error)")
            }
        }
        return (reports, problems)
    }
}
