import CoreDataLint
import Foundation
import Testing

@Suite("Source collection")
struct SourceCollectorTests {
    @Test("Every .swift file under a folder, skipping dot-folders such as .build and .git")
    func skipsDotFolders() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ctxdebug-lint-collect-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: root) }
        for file in ["Sources/App/A.swift", "Sources/App/notes.txt", "B.swift", ".build/debug/C.swift", ".build-release/D.swift", ".git/E.swift"] {
            let url = root.appendingPathComponent(file)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("let x = 1\n".utf8).write(to: url)
        }
        let files = try SourceCollector.swiftFiles(under: [root.path, root.appendingPathComponent("B.swift").path])
        #expect(files == [root.path + "/B.swift", root.path + "/Sources/App/A.swift"])
    }

    @Test("A path that does not exist is an error naming it")
    func missingPath() {
        let error = #expect(throws: LintError.self) { try SourceCollector.swiftFiles(under: ["/nonexistent/Sources"]) }
        #expect(error?.description == "/nonexistent/Sources: no such file or directory")
    }
}
