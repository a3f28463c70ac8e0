import CtxdebugHelpers
import ExploreModel
import Foundation
import TestSupport
import Testing

/// The parent↔child protocol of `ctxdebug explore`: one type each way, JSON lines.
@Suite("The explore protocol's messages")
struct ExploreProtocolTests {
    static let decision = SchedulingDecision(
        step: 4, enabled: ["driver", "q1"], defaultIndex: 0, actor: "driver", point: .fetch, context: nil,
        candidates: [.init(point: .fetch), .init(point: .blockStart, context: "background")])

    @Test("every message reads back as itself from its one line")
    func roundTrips() throws {
        let messages: [ExploreMessage] = [
            .hello(version: ExploreMessage.version, pid: 4242), .decision(Self.decision),
            .failure(ScheduleFailure(kind: .deadlock, message: "q1 and driver wait for each other", detail: "driver → q1 → driver")),
            .sites(["Bug.swift:12 in f()", nil]), .unreproducible, .end,
        ]
        for message in messages {
            let line = try message.line()
            #expect(line.last == 0x0A && line.dropLast().firstIndex(of: 0x0A) == nil, "one line: \(String(decoding: line, as: UTF8.self))")
            #expect(try ExploreMessage(line: line.dropLast()) == message)
        }
        for answer in [SchedulingAnswer.run(1), .diverged("the schedule runs q2 there")] {
            #expect(try SchedulingAnswer(line: answer.line().dropLast()) == answer)
        }
    }

    @Test("the lines are the documented JSON (docs/explore.md, \"CLI ↔ child protocol\")")
    func wireShape() throws {
        func text(_ data: Data) -> String { String(decoding: data.dropLast(), as: UTF8.self) }
        #expect(text(try ExploreMessage.hello(version: 2, pid: 7).line()) == #"{"hello":2,"pid":7}"#)
        #expect(text(try ExploreMessage.end.line()) == #"{"end":true}"#)
        #expect(text(try SchedulingAnswer.run(3).line()) == #"{"run":3}"#)
        #expect(text(try SchedulingAnswer.diverged("why").line()) == #"{"diverged":"why"}"#)
        // A decision's keys are at the top level, as a child written by hand sends them.
        let decision = try #require(try JSONSerialization.jsonObject(with: ExploreMessage.decision(Self.decision).line()) as? [String: Any])
        #expect(decision["enabled"] as? [String] == ["driver", "q1"])
        #expect(decision["point"] as? String == "fetch")
        let candidates = try #require(decision["candidates"] as? [[String: Any]])
        #expect(candidates.map { $0["point"] as? String } == ["fetch", "block-start"])
        // Read from a line written by hand.
        let handWritten = #"{"step":0,"actor":"driver","point":"perform-enqueue","enabled":["driver"],"defaultIndex":0,"candidates":[]}"#
        #expect(try ExploreMessage(line: Data(handWritten.utf8)) == .decision(SchedulingDecision(step: 0, enabled: ["driver"], defaultIndex: 0, point: .performEnqueue)))
    }

    /// The decision's line is written without JSONEncoder on the child's hot path
    /// (ExploreMessage+Line.swift): byte for byte the encoder's, and the encoder's own
    /// where a string would need escaping.
    @Test("a decision's line is the JSON encoder's, byte for byte, whatever its strings")
    func decisionLineIsTheEncoders() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let names = ["background", "main queue", "com.apple.root.default-qos", "a/b", "", "quote\"d", "back\\slash", "new\nline", "tab\t", "café", "🧵", "\u{7F}"]
        var decisions = [
            Self.decision,
            SchedulingDecision(step: 0, enabled: ["driver"], defaultIndex: 0),
            SchedulingDecision(step: Int.max, enabled: ["driver"], defaultIndex: 10),  // every digit the writer has room for
            SchedulingDecision(step: 1234567, enabled: ["driver", "main", "q12", "t3"], defaultIndex: 3, actor: "q12", point: .dispatchAsync, context: "main queue",
                candidates: [.init(point: .drain), .init(point: .blockStart, context: "main queue"), .init(point: .performAndWait, context: nil), .init(point: .timerFire)]),
        ]
        for name in names {
            decisions.append(SchedulingDecision(step: 2, enabled: ["driver", "q1"], defaultIndex: 1, actor: "q1", point: .semaphoreWait, context: name,
                candidates: [.init(point: .blockStart, context: name), .init(point: SchedulingPoint(name))]))
            decisions.append(SchedulingDecision(step: 3, enabled: [name], defaultIndex: 0, actor: name, point: SchedulingPoint(name)))
        }
        for decision in decisions {
            var expected = try encoder.encode(decision)
            expected.append(0x0A)
            let line = try ExploreMessage.decision(decision).line()
            #expect(line == expected, "\(String(decoding: line, as: UTF8.self)) vs \(String(decoding: expected, as: UTF8.self))")
            #expect(try ExploreMessage(line: line.dropLast()) == .decision(decision))
        }
    }

    @Test("an answer reads the same through the short path and the decoder")
    func answerFastPath() throws {
        for index in [0, 1, 9, 10, 42, 123456789] {
            #expect(try SchedulingAnswer(line: Data("{\"run\":\(index)}".utf8)) == .run(index))
        }
        #expect(try SchedulingAnswer(line: Data(#"{ "run" : 2 }"#.utf8)) == .run(2), "other spacing: the decoder")
        #expect(try SchedulingAnswer(line: Data(#"{"diverged":"q3 is not enabled"}"#.utf8)) == .diverged("q3 is not enabled"))
        for bad in [#"{"run":}"#, #"{"run":07}"#, #"{"run":1x}"#, #"{"run":"1"}"#, #"{"run":-1"#] {
            #expect(throws: (any Error).self, "\(bad)") { try SchedulingAnswer(line: Data(bad.utf8)) }
        }
    }

    @Test("a line that is no message is refused, saying what a message has")
    func refusesOtherLines() {
        #expect(throws: DecodingError.self) { try ExploreMessage(line: Data(#"{"hi":1}"#.utf8)) }
        #expect(throws: DecodingError.self) { try SchedulingAnswer(line: Data("1".utf8)) }
        do {
            _ = try ExploreMessage(line: Data(#"{"hi":1}"#.utf8))
        } catch {
            #expect("\(error)".contains("no hello, enabled, failure, sites, reproducible or end key"), "\(error)")
        }
    }

    @Test("a decision's step says what the chosen actor did: its candidate's point, else the reacher's own")
    func stepOfAChoice() {
        let chosen = Self.decision.step(choosing: 1, site: "Bug.swift:30")
        #expect(chosen.actor == "q1" && chosen.point == .blockStart && chosen.queue == "background" && chosen.site == "Bug.swift:30")
        #expect(chosen.isDeviation)
        var bare = Self.decision
        bare.candidates = []
        #expect(bare.step(choosing: 0).point == .fetch, "the reacher goes on from its own point")
        #expect(bare.step(choosing: 1).point == .blockStart, "another actor starts a block")
    }

    @Test("every point the runtime names is in the schedule file's words, and only faults and refreshes are fine")
    func points() {
        #expect(Set(SchedulingPoint.known).count == SchedulingPoint.known.count)
        #expect(SchedulingPoint.known.filter(\.isFine) == [.fault, .refresh])
        #expect(SchedulingPoint("a-point-of-a-later-version").rawValue == "a-point-of-a-later-version", "open: a newer file still reads")
    }
}
