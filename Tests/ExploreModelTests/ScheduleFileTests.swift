import CtxdebugHelpers
import ExploreModel
import Foundation
import TestSupport
import Testing

@Suite("The schedule file and the step log")
struct ScheduleFileTests {
    static let header = ScheduleHeader(strategy: "pct:3", seed: 42, iteration: 17, granularity: .coarse)

    static let steps = [
        ScheduleStep(step: 0, actor: "driver", point: .performEnqueue, queue: "background", site: "Bug.swift:12 in saveTwice()",
                     enabled: ["driver"], defaultIndex: 0, chosen: 0),
        ScheduleStep(step: 1, actor: "q1", point: .blockStart, queue: "background", site: "Bug.swift:30 in saveTwice()",
                     enabled: ["driver", "q1"], defaultIndex: 0, chosen: 1),
        ScheduleStep(step: 2, actor: "q1", point: .storeWrite, queue: "background", site: "Bug.swift:33 in saveTwice()",
                     enabled: ["driver", "q1"], defaultIndex: 1, chosen: 1),
        ScheduleStep(step: 3, actor: "driver", point: .fetch, site: "Bug.swift:41 in saveTwice()",
                     enabled: ["driver", "q1"], defaultIndex: 1, chosen: 0),
    ]

    static let failure = ScheduleFailure(kind: .assertion, message: "expected 2 notes, found 1", detail: "Bug.swift:44: \"quoted\"\nline two")

    static var schedule: ScheduleFile { ScheduleFile(header: header, steps: steps, failure: failure) }

    @Test("choices and deviations are read from the steps")
    func derived() {
        #expect(Self.schedule.choices == ["driver", "q1", "q1", "driver"])
        #expect(Self.schedule.deviations == [1, 3])
        #expect(Self.schedule.deviationChoices == [1: "q1", 3: "driver"])
        #expect(Self.schedule.replayStrategy.choices == Self.schedule.choices)
        #expect(ScheduleStep(Self.steps[1].decision, point: .blockStart, queue: "background", site: "Bug.swift:30 in saveTwice()") == Self.steps[1])
        #expect(Self.schedule.format == "ctxdebug-schedule")
        #expect(Self.schedule.version == 1)
    }

    @Test("A round trip through JSON, with the fields of the contract and failure null when none")
    func roundTrip() throws {
        let data = try Self.schedule.encoded()
        #expect(try ScheduleFile.decode(data) == Self.schedule)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["format", "version", "strategy", "seed", "iteration", "granularity", "reproducible", "choices", "steps", "deviations", "failure"])
        let step = try #require((object["steps"] as? [[String: Any]])?[1])
        #expect(Set(step.keys) == ["step", "actor", "point", "queue", "site", "enabled", "defaultIndex", "chosen"])
        var clean = Self.schedule
        clean.failure = nil
        clean.seed = .max
        let cleanData = try clean.encoded()
        #expect(String(decoding: cleanData, as: UTF8.self).contains(#""failure" : null"#))
        #expect(try ScheduleFile.decode(cleanData) == clean)
    }

    @Test("Another format or version is refused with a message that says so")
    func rejectsOtherVersions() throws {
        func edited(_ change: (inout [String: Any]) -> Void) throws -> Data {
            var object = try #require(try JSONSerialization.jsonObject(with: Self.schedule.encoded()) as? [String: Any])
            change(&object)
            return try JSONSerialization.data(withJSONObject: object)
        }
        let newer = try edited { $0["version"] = 2 }
        #expect(throws: ScheduleFileError.unsupportedVersion(2)) { try ScheduleFile.decode(newer) }
        #expect(ScheduleFileError.unsupportedVersion(2).description.contains("this ctxdebug reads version 1"))
        let other = try edited { $0["format"] = "ctxdebug-report" }
        #expect(throws: ScheduleFileError.notASchedule(format: "ctxdebug-report")) { try ScheduleFile.decode(other) }
        let none = try edited { $0["format"] = nil }
        #expect(throws: ScheduleFileError.notASchedule(format: nil)) { try ScheduleFile.decode(none) }
        #expect(ScheduleFileError.notASchedule(format: nil).description == "not a ctxdebug schedule file: its format is missing, expected 'ctxdebug-schedule'")
        let outOfRange = try edited { object in
            var steps = object["steps"] as! [[String: Any]]
            steps[1]["chosen"] = 5
            object["steps"] = steps
        }
        #expect { try ScheduleFile.decode(outOfRange) } throws: { String(describing: $0).contains("step 1 chooses outside its enabled actors") }
        #expect { try ScheduleFile.decode(Data("[1]".utf8)) } throws: { String(describing: $0).hasPrefix("malformed schedule file") }
    }

    @Test("Written whole to a path, and read back; an unreadable path says why")
    func fileWriteAndRead() throws {
        let directory = TempDirectory("schedule")
        let path = directory.file("bug.schedule.json").path
        try Self.schedule.write(to: path)
        #expect(try ScheduleFile.read(from: path) == Self.schedule)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["bug.schedule.json"])
        #expect(throws: ScheduleFileError.unreadable(path: directory.file("none").path, reason: "No such file or directory")) {
            try ScheduleFile.read(from: directory.file("none").path)
        }
    }

    static func writeLog(_ path: String, failure: ScheduleFailure?, notReproducible: Bool = false) throws {
        var writer = try StepLogWriter.create(path: path, header: header)
        defer { writer.close() }
        for step in steps { try writer.writeStep(step) }
        if notReproducible { try writer.writeNotReproducible() }
        if let failure { try writer.writeFailure(failure) } else { try writer.writeEnd() }
    }

    @Test("The step log assembles into the same schedule; each line is JSON that JSONSerialization reads")
    func logAssembles() throws {
        let directory = TempDirectory("log")
        let path = directory.file("run.log").path
        try Self.writeLog(path, failure: Self.failure)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let assembled = try StepLog.assemble(data)
        #expect(assembled.schedule == Self.schedule)
        #expect(assembled.finished)
        #expect(!assembled.truncatedLastLine)
        let lines = data.split(separator: 0x0A)
        #expect(lines.count == 1 + Self.steps.count + 1)
        for line in lines { #expect((try? JSONSerialization.jsonObject(with: line)) is [String: Any]) }
        // read(from:) takes a log as well as a schedule file.
        #expect(try ScheduleFile.read(from: path) == Self.schedule)
        try Self.writeLog(path, failure: nil, notReproducible: true)
        let ended = try StepLog.assemble(Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(ended.finished)
        #expect(ended.schedule.failure == nil)
        #expect(!ended.schedule.reproducible)
    }

    @Test("A log cut anywhere in its last line (a crash) gives the steps before it")
    func truncatedLastLine() throws {
        let directory = TempDirectory("cut")
        let path = directory.file("run.log").path
        try Self.writeLog(path, failure: Self.failure)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        // Keep the header and the first three steps whole, cut the fourth step's line.
        let whole = lines[0..<4].reduce(0) { $0 + $1.count + 1 }
        let fourth = lines[4].count
        for cut in 1..<fourth {
            let assembled = try StepLog.assemble(data.prefix(whole + cut))
            #expect(assembled.schedule.steps == Array(Self.steps[0..<3]), "cut at \(cut)")
            #expect(assembled.truncatedLastLine)
            #expect(!assembled.finished)
            #expect(assembled.schedule.failure == nil)
        }
        // Cut right after a newline: nothing truncated, not finished.
        let atLine = try StepLog.assemble(data.prefix(whole))
        #expect(!atLine.truncatedLastLine && !atLine.finished && atLine.schedule.steps.count == 3)
    }

    @Test("A bad line before the last one, a gap in the steps or another header is an error")
    func corruptLog() throws {
        let directory = TempDirectory("corrupt")
        let path = directory.file("run.log").path
        try Self.writeLog(path, failure: nil)
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        var broken = lines
        broken[2] = String(broken[2].dropLast(3))
        #expect { try StepLog.assemble(Data((broken.joined(separator: "\n") + "\n").utf8)) } throws: {
            String(describing: $0).contains("line 3 of the step log is not JSON")
        }
        var gap = lines
        gap.remove(at: 2)
        #expect { try StepLog.assemble(Data((gap.joined(separator: "\n") + "\n").utf8)) } throws: {
            String(describing: $0).contains("is step 2, expected step 1")
        }
        lines[0] = lines[0].replacingOccurrences(of: #""version":1"#, with: #""version":7"#)
        #expect(throws: ScheduleFileError.unsupportedVersion(7)) { try StepLog.assemble(Data((lines.joined(separator: "\n") + "\n").utf8)) }
        #expect(throws: ScheduleFileError.malformed("the step log is empty")) { try StepLog.assemble(Data()) }
    }

    @Test("The writer escapes what JSON must: quotes, backslashes, controls; other text as is")
    func escaping() throws {
        let directory = TempDirectory("escape")
        let path = directory.file("run.log").path
        let odd = "a \"quoted\" \\ path\t\u{1}\r\n é 🧵"
        let header = ScheduleHeader(strategy: odd, seed: .max, iteration: -1, granularity: .fine, reproducible: false)
        var writer = try StepLogWriter.create(path: path, header: header)
        let step = ScheduleStep(step: 0, actor: "q1", point: "fault", queue: odd, site: odd, enabled: ["driver", "q1"], defaultIndex: 0, chosen: 1)
        try writer.writeStep(step)
        try writer.writeFailure(ScheduleFailure(kind: .crash, message: odd))
        writer.close()
        let assembled = try StepLog.assemble(Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(assembled.schedule.header == header)
        #expect(assembled.schedule.steps == [step])
        #expect(assembled.schedule.failure == ScheduleFailure(kind: .crash, message: odd))
    }

    @Test("Opening a log where no file can be made says where and why")
    func unwritableLog() {
        #expect { try StepLogWriter.create(path: "/nonexistent-dir/run.log", header: Self.header) } throws: {
            String(describing: $0) == "cannot write the step log /nonexistent-dir/run.log: No such file or directory"
        }
    }
}

@Suite("docs/explore.md against the code")
struct ExploreDocsTests {
    static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/explore.md")

    @Test("The schedule file example reads as a schedule whose choices and deviations match its steps")
    func scheduleExample() throws {
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        let start = try #require(text.range(of: "```json\n"))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        let schedule = try ScheduleFile.decode(Data(text[start.upperBound..<end.lowerBound].utf8))
        #expect(schedule.choices == schedule.steps.map(\.actor))
        #expect(schedule.deviations == schedule.steps.filter(\.isDeviation).map(\.step))
        #expect(schedule.failure?.kind == .assertion)
    }

    @Test("The spec error the docs quote is the one a bad spec gives")
    func specError() throws {
        let text = try String(contentsOf: Self.document, encoding: .utf8).replacingOccurrences(of: "\n", with: " ")
        #expect { try ExploreStrategy(parsing: "fifo") } throws: { error in
            text.contains("`\(error)`")
        }
        #expect(text.contains("`diverged at step i: the schedule runs q2 there, but only driver, q1 could run`"))
        #expect(ReplayDivergence(step: 4, expected: "q2", enabled: ["driver", "q1"]).description.hasPrefix("diverged at step 4: the schedule runs q2 there, but only driver, q1 could run"))
    }
}
