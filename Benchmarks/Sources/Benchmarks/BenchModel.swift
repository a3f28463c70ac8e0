import Foundation

/// What `ctxdebug bench` measured: the JSON it writes with `--format json`, and what
/// the text and Markdown renderers read. Every figure is taken side by side in one
/// run; each is the median of its samples, with the spread (min–max).
struct BenchReport: Codable {
    static let currentSchemaVersion = 1

    var schemaVersion = BenchReport.currentSchemaVersion
    var tool = "ctxdebug bench"
    var quick: Bool
    var machine: BenchMachine
    var items: [BenchItem]
    /// Wall time of the whole bench run, in seconds.
    var wallSeconds: Double
}

/// Where and how the figures were taken.
struct BenchMachine: Codable {
    var date: String
    var cores: Int
    var cpuModel: String
    var toolchain: String
    var build: String
    /// The 1-minute load average when the run started and when it ended.
    var loadAverageAtStart: Double
    var loadAverageAtEnd: Double
}

/// One numbered item of the benchmark (per-access cost, export, ThreadSanitizer...).
struct BenchItem: Codable {
    /// "1" ... "7".
    var id: String
    var title: String
    /// What was run, in a few sentences: sizes, repetitions, what a figure includes.
    var setup: [String]
    var figures: [BenchFigure]
    var targets: [BenchTarget]
    /// ThreadSanitizer against ctxdebug, one row per case (item 3 only).
    var detections: [BenchDetection]?
    /// Set when the item (or a part of it, said in `setup`) could not run, and why.
    var skipped: String?
    /// Things the reader must know to read the figures right.
    var notes: [String]
}

/// One measured figure: the median of its samples and their spread.
struct BenchFigure: Codable {
    var name: String
    var unit: String
    var median: Double
    var min: Double
    var max: Double
    var samples: [Double]
    /// True for a difference of two measurements (it can be 0 or below in noise);
    /// false for a measured time, rate, size or ratio, which is always above 0.
    var signed: Bool

    init(_ name: String, unit: String, samples: [Double], signed: Bool = false) {
        self.name = name
        self.unit = unit
        self.samples = samples
        self.signed = signed
        let sorted = samples.sorted()
        self.min = sorted.first ?? .nan
        self.max = sorted.last ?? .nan
        if sorted.isEmpty {
            median = .nan
        } else if sorted.count % 2 == 1 {
            median = sorted[sorted.count / 2]
        } else {
            median = (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }
    }
}

/// A target of the map (ARCHITECTURE.md, "Targets"), against what was measured.
struct BenchTarget: Codable {
    var what: String
    var target: String
    var measured: String
    var met: Bool
}

/// Whether each tool reported one seeded bug.
struct BenchDetection: Codable {
    /// "replay --inject-bug NAME", a seeded program, or a control with no bug.
    var name: String
    var kind: String
    /// Whether the case holds a bug (false for the controls).
    var hasBug: Bool
    /// Whether ThreadSanitizer reported anything; nil when it was not run.
    var threadSanitizer: Bool?
    /// ThreadSanitizer's warnings ("data race at File.swift:LINE"), distinct, without
    /// those in files where its control (the same harness with no bug) warned too.
    var threadSanitizerWarnings: [String]
    /// The warnings of this case that its control gave too: not credited to the bug.
    var threadSanitizerControlWarnings: [String]
    /// Whether ctxdebug at level 1 reported a violation.
    var ctxdebug: Bool
    var ctxdebugViolations: Int
}

extension Double {
    /// A figure for a table: 3 significant digits, thousands separated.
    var benchFormatted: String {
        if isNaN { return "n/a" }
        let magnitude = Swift.abs(self)
        if magnitude >= 1_000 {
            let digits = String(Int(magnitude.rounded()))
            var grouped = ""
            for (index, character) in digits.enumerated() {
                if index > 0 && (digits.count - index) % 3 == 0 { grouped.append(",") }
                grouped.append(character)
            }
            return (self < 0 ? "-" : "") + grouped
        }
        if magnitude >= 100 { return String(format: "%.0f", self) }
        if magnitude >= 10 { return String(format: "%.1f", self) }
        if magnitude >= 1 { return String(format: "%.2f", self) }
        return String(format: "%.3f", self)
    }
}
