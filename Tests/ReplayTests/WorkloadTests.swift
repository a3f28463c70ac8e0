import Foundation
import Replay
import Testing

@Suite("Workload files")
struct WorkloadTests {
    private func parse(_ text: String) throws -> Workload {
        try Workload.parse(Array(text.utf8), fileName: "w.json")
    }

    @Test func readsAWellFormedWorkload() throws {
        let w = try parse("""
            {
              "version": 1,
              "name": "demo",
              "timeline": [
                {"action": "scroll", "rowsPerSecond": 120},
                {"action": "pause", "seconds": 0.5},
                {"action": "export", "queue": "main"},
                {"action": "sync", "bursts": 2, "inserts": 5, "updates": 5, "interval": 0.1, "wait": true},
                {"action": "open", "row": 3},
                {"action": "edit", "rating": 4, "location": "Rincon"},
                {"action": "save"}
              ]
            }
            """)
        #expect(w.name == "demo")
        #expect(w.steps.count == 7)
        #expect(w.timelineSeconds == 0.5)
        #expect(w.steps[2].line == 7)
    }

    @Test func theExamplesInTheDocsParse() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let dir = root.appendingPathComponent("docs/examples")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: dir.path))?.filter { $0.hasSuffix(".json") } ?? []
        #expect(!files.isEmpty)
        for f in files {
            _ = try Workload.load(contentsOf: dir.appendingPathComponent(f))
        }
    }

    @Test(arguments: [
        ("{\n  \"version\": 1,\n  \"timeline\": [\n    {\"action\": \"scroll\" \"rowsPerSecond\": 1}\n  ]\n}", 4, 25, "expected ','"),
        ("{\n  \"version\": 1,\n  \"timeline\": [\n    {\"action\": \"scrol\"}\n  ]\n}", 4, 16, "unknown action"),
        ("{\n  \"version\": 1,\n  \"timeline\": [\n    {\"action\": \"pause\", \"seconds\": \"x\"}\n  ]\n}", 4, 36, "must be a number"),
        ("{\"version\": 2, \"timeline\": []}", 1, 13, "unsupported"),
        ("", 1, 1, "empty"),
        ("{\"version\": 1, \"timeline\": [}", 1, 29, "unexpected"),
    ])
    func malformedFilesNameTheLineAndColumn(text: String, line: Int, column: Int, words: String) throws {
        do {
            _ = try parse(text)
            Issue.record("parsed a malformed workload")
        } catch let e as ReplayError {
            #expect(e.message.hasPrefix("w.json:\(line):\(column): "), "\(e.message)")
            #expect(e.message.contains(words), "\(e.message)")
            #expect(e.code == .badInput)
        }
    }

    /// Callers match on the code alone, as GRDB's `catch DatabaseError.SQLITE_CONSTRAINT`.
    @Test func errorsMatchOnTheirCode() {
        var matched = false
        do {
            _ = try parse("{\"version\": 2, \"timeline\": []}")
        } catch ReplayError.Code.invalidOptions {
            Issue.record("a malformed file is bad input, not bad options")
        } catch ReplayError.Code.badInput {
            matched = true
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(matched)
    }

    @Test func everyScenarioHasABuiltInWorkload() {
        for s in ScenarioName.allCases {
            let w = Workload.builtIn(s)
            #expect(!w.steps.isEmpty)
            #expect((w.stack == .nested) == (s == .nestedStack))
        }
        for b in InjectedBug.allCases { #expect(ScenarioName.allCases.contains(b.hostScenario)) }
    }

    @Test func hitchBands() {
        #expect(HitchBand.band(0) == "good")
        #expect(HitchBand.band(10) == "good")
        #expect(HitchBand.band(10.1) == "warning")
        #expect(HitchBand.band(25) == "warning")
        #expect(HitchBand.band(50) == "critical")
        #expect(HitchBand.band(51) == "worse")
    }
}
