import ConcurrencyDebug
import Dispatch
import Foundation
import TestSupport
import Testing
import ManagedContext

/// Issue 18, part 2: a printed stack starts at the user's line. An attribute access
/// goes through the property wrapper's subscript, the synthesized getter or setter of
/// the wrapped property and the runtime's check before it reaches the checker; those
/// frames are the runtime's, and `#0` is the line that made the access. The JSON
/// report keeps every frame, the runtime's marked `"runtime": true`.
@Suite struct UserFrameTests {
    @Test func printedStacksStartAtTheUsersLineForAttributeRelationshipAndContextAccesses() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            fourAccessesInLogMode()
        }
        let stderr = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        let reports = stderr.components(separatedBy: "ctxdebug: BUG DETECTED").dropFirst()
        // The relationship get also resolves the related object through the context
        // (`object(with:)`), which is checked too: a fifth report, at the same line.
        let expected: [(marker: String, access: String)] = [
            ("GET", "get of Sample.name"),
            ("SET", "set of Sample.name"),
            ("RELATIONSHIP", "get of Visit.place"),
            ("RELATIONSHIP", "access:    object(with:)"),
            ("CONTEXT", "access:    count"),
        ]
        try #require(reports.count == expected.count, "each distinct violation printed once:\n\(stderr)")
        for ((name, access), report) in zip(expected, reports) {
            let marker = "USER-FRAME-" + name
            #expect(report.contains(access), "\(report)")
            let first = report.components(separatedBy: "\n").first { $0.contains("#0 ") } ?? ""
            #expect(
                first.contains("UserFrameTests.swift:\(sourceLine(of: marker)):"),
                "#0 is the user's line \(sourceLine(of: marker)) for \(access), not the runtime's:\n\(report)")
            #expect(!first.contains("/Sources/ManagedContext/"))
            #expect(report.contains("of the runtime above these left out"), "says frames were left out:\n\(report)")
        }
    }

    @Test func theJSONReportKeepsTheRuntimesFramesMarked() async throws {
        let report = temporaryPath("user-frames.json")
        defer { unlink(report) }
        await #expect(processExitsWith: .exitCode(66)) { [report = report as String] in
            ConcurrencyDebug.Variable.set([.onViolation: "report", .report: report])
            attributeGetInReportMode()
        }
        let file = try JSONDecoder().decode(ViolationReportFile.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
        let violation = try #require(file.violations.first)
        let site = sourceLine(of: "USER-FRAME-" + "REPORT")
        let runtime = violation.frames.prefix { $0.isRuntime }
        #expect(runtime.count >= 3, "the wrapper, the getter and the runtime's own: \(violation.frames.prefix(6).map(\.formatted))")
        #expect(runtime.contains { $0.file?.contains("/Sources/ManagedContext/") == true })
        #expect(runtime.contains { $0.function?.contains("Sample.name.getter") == true }, "the wrapped property's getter")
        #expect(!violation.frames.dropFirst(runtime.count).contains { $0.isRuntime })
        let user = try #require(violation.userFrames.first)
        #expect(user.file?.hasSuffix("UserFrameTests.swift") == true && user.line == site, "\(user.formatted)")
        // The raw JSON marks them too.
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        let frames = try #require(((json["violations"] as? [[String: Any]])?.first?["frames"]) as? [[String: Any]])
        #expect(frames.prefix(runtime.count).allSatisfy { $0["runtime"] as? Bool == true })
        #expect(frames.dropFirst(runtime.count).allSatisfy { $0["runtime"] == nil })
    }
}

// The children's bodies live outside `#expect`, so that debug info gives their lines
// in this file.

private func fourAccessesInLogMode() {
    ConcurrencyDebug.Variable.set([.concurrency: "1", .onViolation: "log"])
    let stack = try! TestStack()
    let background = stack.privateContext("background")
    let (sample, visit) = background.performAndWait {
        let sample = Sample(context: background)
        let visit = Visit(context: background)
        visit.place = Place(context: background)
        return (sample, visit)
    }
    nonisolated(unsafe) let s = sample
    nonisolated(unsafe) let v = visit
    DispatchQueue(label: "test.user-frames").sync {
        _ = s.name  // USER-FRAME-GET
        s.name = "changed"  // USER-FRAME-SET
        _ = v.place  // USER-FRAME-RELATIONSHIP
        _ = try? background.count(for: FetchRequest<Sample>())  // USER-FRAME-CONTEXT
    }
}

private func attributeGetInReportMode() {
    ConcurrencyDebug.Variable.concurrency.set("1")
    let stack = try! TestStack()
    let background = stack.privateContext("background")
    let sample = background.performAndWait { Sample(context: background) }
    nonisolated(unsafe) let s = sample
    DispatchQueue(label: "test.user-frames").sync {
        _ = s.name  // USER-FRAME-REPORT
    }
}
