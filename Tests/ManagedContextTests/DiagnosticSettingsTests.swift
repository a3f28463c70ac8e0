import ConcurrencyDebug
import Foundation
import Testing
import ManagedContext

/// Which diagnostics run by default (issue 17): on by default only what is a bug in
/// every program; the rest opt-in by name. The table in docs/diagnostics.md says the
/// same as the code.
@Suite struct DiagnosticSettingsTests {
    static let expectedDefaults = ["temporary-id", "cross-context-relationship", "stale-object", "unsaved-ancestor"]
    static let expectedOptIn = ["abandoned-insert", "missing-merge", "lost-update", "main-queue-wait", "main-queue-io", "remote-change-unmerged"]

    @Test func theDefaultSetIsTheBugsOfEveryProgram() {
        #expect(Diagnostics.defaultKinds.map(\.rawValue).sorted() == Self.expectedDefaults.sorted())
        #expect(Diagnostics.optInKinds.map(\.rawValue).sorted() == Self.expectedOptIn.sorted())
        #expect(Diagnostics.defaultKinds.isDisjoint(with: Diagnostics.optInKinds))
        #expect(Diagnostics.defaultKinds.union(Diagnostics.optInKinds) == Set(Diagnostics.allKinds))
        let (unset, warnings) = Diagnostics.Settings.read(environment: [:])
        #expect(unset.enabled == Diagnostics.defaultKinds && warnings.isEmpty)
    }

    @Test func optInKindsAreTurnedOnByName() {
        func enabled(_ list: String) -> [String] {
            Diagnostics.Settings.read(environment: ConcurrencyDebug.Variable.environment([.diagnostics: list])).0.enabled.map(\.rawValue).sorted()
        }
        #expect(enabled("default,missing-merge") == (Self.expectedDefaults + ["missing-merge"]).sorted())
        #expect(enabled("all") == (Self.expectedDefaults + Self.expectedOptIn).sorted())
        #expect(enabled("all,-lost-update") == (Self.expectedDefaults + Self.expectedOptIn).filter { $0 != "lost-update" }.sorted())
        #expect(enabled("none,abandoned-insert") == ["abandoned-insert"])
        #expect(enabled("default") == Self.expectedDefaults.sorted())
    }

    /// Every kind has a row in docs/diagnostics.md's table, with the default the code has.
    @Test func theDocsTableSaysEachKindsDefault() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/diagnostics.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        var documented: [String: String] = [:]
        for line in text.components(separatedBy: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 3, cells[1] == "on" || cells[1] == "opt-in" else { continue }
            documented[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = cells[1]
        }
        for kind in Diagnostics.allKinds {
            let expected = Diagnostics.defaultKinds.contains(kind) ? "on" : "opt-in"
            #expect(documented[kind.rawValue] == expected, "docs/diagnostics.md: \(kind) is \(documented[kind.rawValue] ?? "missing"), the code says \(expected)")
        }
    }
}
