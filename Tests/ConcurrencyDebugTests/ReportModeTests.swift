import ConcurrencyDebug
import Foundation
import TestSupport
import Testing

@Suite("Report and log modes")
struct ReportModeTests {
    @Test("Report mode: three distinct violations, one of them 1,000 times, exit 66 with a JSON of three")
    func reportModeDeduplicatesByStack() async throws {
        let path = temporaryPath("report.json")
        let stderrPath = temporaryPath("stderr.txt")
        defer {
            unlink(path)
            unlink(stderrPath)
        }
        // The summary is printed at exit, after Swift Testing stops capturing the
        // child's stderr: send stderr to a file instead.
        await #expect(processExitsWith: .exitCode(66)) { [path = path as String, stderrPath = stderrPath as String] in
            redirectStandardError(to: stderrPath)
            threeViolationsChild(reportPath: path)
        }
        let stderr = String(decoding: try Data(contentsOf: URL(fileURLWithPath: stderrPath)), as: UTF8.self)
        #expect(stderr.contains("ctxdebug: SUMMARY: 3 distinct concurrency violations (1002 in all)"), "\(stderr.prefix(3000))")
        #expect(stderr.contains("exiting with status 66"))

        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let report = try JSONDecoder().decode(ViolationReportFile.self, from: data)
        #expect(report.distinctCount == 3)
        #expect(report.totalCount == 1002)
        try #require(report.violations.count == 3)
        #expect(report.violations.map(\.count) == [1000, 1, 1])
        #expect(report.violations.map(\.access.operation) == ["get", "set", "set"])
        #expect(report.violations.allSatisfy { $0.kind == .wrongQueue })
        #expect(report.violations.allSatisfy { $0.queueLabel == "test.report-offender" })
        let sites = ["REPORT-SITE-REPEATED", "REPORT-SITE-SET", "REPORT-SITE-CONFINED"].map { line(of: $0) }
        for (violation, site) in zip(report.violations, sites) {
            #expect(!violation.addresses.isEmpty)
            #expect(
                violation.frames.contains { $0.file?.hasSuffix("ReportModeTests.swift") == true && $0.line == site },
                "violation \(violation.access.operation) has ReportModeTests.swift:\(site) in its stack: \(violation.frames.prefix(4).map(\.formatted))")
        }
        // Same JSON, through the raw dictionary: a stack per violation.
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let violations = try #require(json["violations"] as? [[String: Any]])
        #expect(violations.allSatisfy { ($0["frames"] as? [Any])?.isEmpty == false })
    }

    @Test("Report mode with CTXDEBUG_EXITCODE exits with that status")
    func reportModeExitCode() async {
        await #expect(processExitsWith: .exitCode(9)) {
            ConcurrencyDebug.Variable.set([.concurrency: "1", .onViolation: "report", .exitCode: "9"])
            let item = FakeItem(owner: QueueIdentity.makePrivate(label: "test.owner"))
            DispatchQueue(label: "test.elsewhere").sync { _ = item.title }
        }
    }

    @Test("Report mode with no violation exits normally")
    func reportModeClean() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            ConcurrencyDebug.Variable.set([.concurrency: "1", .onViolation: "report"])
            let owner = QueueIdentity.makePrivate(label: "test.owner")
            let item = FakeItem(owner: owner)
            runAs(owner) { item.title = "ok" }
        }
        let stderr = utf8(try #require(result).standardErrorContent)
        #expect(stderr.contains("on violation: report"))
        #expect(!stderr.contains("SUMMARY"))
    }

    @Test("Log mode prints once per distinct stack and goes on")
    func logModeOncePerStack() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            logModeChild()
        }
        let stderr = utf8(try #require(result).standardErrorContent)
        #expect(occurrences(of: "BUG DETECTED", in: stderr) == 2)
        #expect(containsLocation(stderr, fileName: "ReportModeTests.swift", line: line(of: "LOG-SITE-REPEATED")))
        #expect(containsLocation(stderr, fileName: "ReportModeTests.swift", line: line(of: "LOG-SITE-OTHER")))
        #expect(stderr.contains("still running"))
    }

    @Test("Bad values warn once each, name the accepted values, and fall back")
    func badValuesWarnAndFallBack() async throws {
        let result = await #expect(processExitsWith: .signal(SIGTRAP), observing: [\.standardErrorContent]) {
            ConcurrencyDebug.Variable.set([.concurrency: "yes please", .onViolation: "explode", .exitCode: "-4", .suppressions: "/nonexistent/ctxdebug-suppressions"])
            let item = FakeItem(owner: QueueIdentity.makePrivate(label: "test.owner"))
            DispatchQueue(label: "test.elsewhere").sync { _ = item.title }
        }
        let stderr = utf8(try #require(result).standardErrorContent)
        #expect(stderr.contains(#"CTXDEBUG_CONCURRENCY="yes please" is not valid; accepted: 0 (off), 1 (check), 2 (also perform queues), 3 (also journal); using 1."#))
        #expect(stderr.contains(#"CTXDEBUG_ON_VIOLATION="explode" is not valid; accepted: trap, report, log; using trap."#))
        #expect(stderr.contains(#"CTXDEBUG_EXITCODE="-4" is not valid; accepted: an integer from 0 to 255; using 66."#))
        #expect(stderr.contains(#"CTXDEBUG_SUPPRESSIONS="/nonexistent/ctxdebug-suppressions" cannot be read"#))
        // It fell back to level 1 and trap: the violation trapped.
        #expect(stderr.contains("concurrency checking on (level 1, on violation: trap)"))
        #expect(stderr.contains("BUG DETECTED"))
    }
}

private func threeViolationsChild(reportPath: String) {
    ConcurrencyDebug.Variable.set([.concurrency: "1", .onViolation: "report", .report: reportPath])
    let owner = QueueIdentity.makePrivate(label: "test.report-owner")
    let item = FakeItem(owner: owner)
    let counter = QueueConfined(0, owner: owner, name: "counter")
    DispatchQueue(label: "test.report-offender").sync {
        for _ in 0..<1000 {
            _ = item.title  // REPORT-SITE-REPEATED
        }
        item.title = "changed"  // REPORT-SITE-SET
        counter.value = 1  // REPORT-SITE-CONFINED
    }
    // Report mode goes on after each violation.
    print("went on after \(ConcurrencyDebug.recordedViolations.count) distinct violations")
}

private func logModeChild() {
    ConcurrencyDebug.Variable.set([.concurrency: "1", .onViolation: "log"])
    let item = FakeItem(owner: QueueIdentity.makePrivate(label: "test.log-owner"))
    DispatchQueue(label: "test.log-offender").sync {
        for _ in 0..<50 {
            _ = item.title  // LOG-SITE-REPEATED
        }
        item.title = "x"  // LOG-SITE-OTHER
    }
    FileHandle.standardError.write(Data("still running\n".utf8))
}
