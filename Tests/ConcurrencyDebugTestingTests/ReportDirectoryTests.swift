import ConcurrencyDebug
import Foundation
import Testing

/// `CTXDEBUG_REPORT_DIR` and `CTXDEBUG_EXITCODE=0`: what `ctxdebug check` relies on.
@Suite("Report directory")
struct ReportDirectoryTests {
    @Test("CTXDEBUG_REPORT_DIR is read; an empty value warns")
    func readsTheVariable() {
        let (set, none) = ConcurrencyDebug.Configuration.read(
            environment: ConcurrencyDebug.Variable.environment([.reportDirectory: "/tmp/reports"]), arguments: [], pid: 1)
        #expect(set.reportDirectory == "/tmp/reports")
        #expect(none.isEmpty)
        let (empty, warnings) = ConcurrencyDebug.Configuration.read(environment: ConcurrencyDebug.Variable.environment([.reportDirectory: " "]), arguments: [], pid: 1)
        #expect(empty.reportDirectory == nil)
        #expect(warnings == [#"ctxdebug: warning: CTXDEBUG_REPORT_DIR=" " is not valid; accepted: a directory path; using no report directory."#])
    }

    static func directory() -> String {
        NSTemporaryDirectory() + "/ctxdebug-reportdir-test-\(getpid())-\(UUID().uuidString.prefix(8))"
    }

    @Test("With CTXDEBUG_EXITCODE=0, a process keeps its own failing status, and its report is in the directory")
    func keepsAFailingStatus() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        await #expect(processExitsWith: .exitCode(3)) { [directory = directory as String] in
            violateInReportMode(directory: directory)
            exit(3)
        }
        let (reports, problems) = ReportDirectory.read(directory)
        #expect(problems.isEmpty)
        try #require(reports.count == 1)
        #expect(reports[0].violations.first?.access.objectID == "report-dir.value")
        #expect(reports[0].violations.first?.frames.isEmpty == false, "symbolicated")
    }

    @Test("With CTXDEBUG_EXITCODE=0, a passing process still exits 0; two processes write two files")
    func keepsAPassingStatus() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for _ in 0..<2 {
            await #expect(processExitsWith: .success) { [directory = directory as String] in
                violateInReportMode(directory: directory)
            }
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(names.count == 2, "\(names)")
        #expect(names.allSatisfy { $0.hasPrefix("ctxdebug-report-") && $0.hasSuffix(".json") })
        #expect(ReportDirectory.read(directory).reports.count == 2)
    }
}

private func violateInReportMode(directory: String) {
    ConcurrencyDebug.Variable.set([.concurrency: "1", .onViolation: "report", .exitCode: "0", .reportDirectory: directory])
    let value = QueueConfined(0, owner: QueueIdentity.makePrivate(label: "report-dir.owner"), name: "report-dir.value")
    DispatchQueue(label: "report-dir.offender").sync { _ = value.value }
}
