import Foundation
import Testing

/// Runs the BUILT ctxdebug binary (.build/debug/ctxdebug; `swift build` first, as
/// Scripts/test does): `ctxdebug bench --quick --format json`. Checks the report's
/// shape and that every figure is there, never how fast anything was.
@Suite struct BenchCommandTests {
    static let binary = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/debug/ctxdebug").path

    struct Report: Decodable {
        var schemaVersion: Int
        var tool: String
        var quick: Bool
        var machine: Machine
        var items: [Item]
        var wallSeconds: Double
    }
    struct Machine: Decodable {
        var date: String
        var cores: Int
        var cpuModel: String
        var toolchain: String
        var build: String
    }
    struct Item: Decodable {
        var id: String
        var title: String
        var setup: [String]
        var figures: [Figure]
        var targets: [Target]
        var detections: [Detection]?
        var skipped: String?
        var notes: [String]
    }
    struct Figure: Decodable {
        var name: String
        var unit: String
        var median: Double
        var min: Double
        var max: Double
        var samples: [Double]
        var signed: Bool
    }
    struct Target: Decodable {
        var what: String
        var target: String
        var measured: String
        var met: Bool
    }
    struct Detection: Decodable {
        var name: String
        var hasBug: Bool
        var threadSanitizer: Bool?
        var ctxdebug: Bool
    }

    @Test func quickBenchReportsEveryItemAndFigure() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary), "build first: swift build")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["bench", "--quick", "--format", "json"]
        let out = Pipe()
        let err = FileHandle(forWritingAtPath: "/dev/null")
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let report = try JSONDecoder().decode(Report.self, from: data)

        #expect(report.schemaVersion == 1)
        #expect(report.tool == "ctxdebug bench")
        #expect(report.quick)
        #expect(report.machine.cores > 0)
        #expect(!report.machine.cpuModel.isEmpty && !report.machine.toolchain.isEmpty && !report.machine.date.isEmpty)
        #expect(report.wallSeconds > 0)
        #expect(report.items.map(\.id) == ["1", "2", "3", "4", "5", "6", "7", "8"])

        for item in report.items {
            #expect(!item.title.isEmpty && !item.setup.isEmpty, "item \(item.id)")
            #expect(!item.figures.isEmpty, "item \(item.id) has figures")
            for f in item.figures {
                #expect(!f.samples.isEmpty, "\(item.id) \(f.name): samples")
                #expect(f.samples.allSatisfy(\.isFinite) && f.median.isFinite, "\(item.id) \(f.name): finite")
                #expect(f.min <= f.median && f.median <= f.max, "\(item.id) \(f.name): median within spread")
                if !f.signed { #expect(f.median > 0 && f.min > 0, "\(item.id) \(f.name): positive") }
                #expect(!f.unit.isEmpty)
            }
            for t in item.targets {
                #expect(!t.what.isEmpty && !t.target.isEmpty && !t.measured.isEmpty)
            }
        }
        // Every map target has a row (met or missed, whatever the quick figures say).
        let targets = report.items.flatMap(\.targets).map(\.what)
        #expect(targets.count == 14, "\(targets)")
        // Item 3: every injected bug (3 or more) and the 5 seeded programs, and the controls.
        let detections = try #require(report.items.first { $0.id == "3" }?.detections)
        #expect(detections.filter(\.hasBug).count >= 8)
        #expect(detections.filter { !$0.hasBug }.count == 2)
        // Without --tsan-binary the ThreadSanitizer column is absent, and said so.
        #expect(detections.allSatisfy { $0.threadSanitizer == nil })
        #expect(report.items.first { $0.id == "3" }?.skipped != nil)
    }
}
