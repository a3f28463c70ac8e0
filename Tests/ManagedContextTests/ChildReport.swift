import ConcurrencyDebug
import Foundation
import TestSupport
import Testing
import ManagedContext

/// What a child process recorded, read from the JSON report it wrote when it exited.
///
/// The child runs one named program in report mode (`CTXDEBUG_ON_VIOLATION=report`),
/// so everything is collected, including what is only found at exit (unsaved-ancestor),
/// and the real exit path writes the JSON. Its stderr goes to a file, since the summary
/// is printed after Swift Testing stops capturing.
struct ChildReport {
    /// Every distinct violation, in the order first seen.
    var violations: [Violation]
    var stderr: String
    /// The kinds recorded, each once, sorted.
    var kinds: [String] { Set(violations.map(\.kind.rawValue)).sorted() }

    /// Runs `program` in a child process with checking at
    /// level 1 in report mode, plus `environment`. Expects exit status 66 when
    /// `expectViolations`, else success. The variables that would send the child's
    /// report elsewhere (`CTXDEBUG_REPORT_DIR`, a journal, suppressions, another exit
    /// code) and an inherited `CTXDEBUG_DIAGNOSTICS` are cleared first.
    static func run(_ program: ChildProgram, environment: [String: String], expectViolations: Bool) async throws -> ChildReport {
        let dir = TempDirectory()
        var environment = environment
        environment[ChildStack.directoryVariable] = dir.url.path
        let reportPath = dir.file("report.json").path
        let stderrPath = dir.file("stderr.txt").path
        if expectViolations {
            await #expect(processExitsWith: .exitCode(66)) {
                [program = program as ChildProgram, environment = environment as [String: String], reportPath = reportPath as String,
                 stderrPath = stderrPath as String] in
                childMain(program, environment, reportPath, stderrPath)
            }
        } else {
            await #expect(processExitsWith: .success) {
                [program = program as ChildProgram, environment = environment as [String: String], reportPath = reportPath as String,
                 stderrPath = stderrPath as String] in
                childMain(program, environment, reportPath, stderrPath)
            }
        }
        let stderr = String(decoding: fileBytes(URL(fileURLWithPath: stderrPath)), as: UTF8.self)
        var violations: [Violation] = []
        if FileManager.default.fileExists(atPath: reportPath) {
            let data = try Data(contentsOf: URL(fileURLWithPath: reportPath))
            violations = try JSONDecoder().decode(ViolationReportFile.self, from: data).violations
        }
        return ChildReport(violations: violations, stderr: stderr)
    }
}

private func childMain(_ program: ChildProgram, _ environment: [String: String], _ reportPath: String, _ stderrPath: String) {
    redirectStandardError(to: stderrPath)
    for variable in [ConcurrencyDebug.Variable.diagnostics, .reportDirectory, .journal, .suppressions, .exitCode] {
        variable.unset()
    }
    ConcurrencyDebug.Variable.set([.concurrency: "1", .onViolation: "report", .report: reportPath])
    // The caller's, built from the table (`ConcurrencyDebug.Variable.environment`), and
    // `ChildStack.directoryVariable`.
    for (name, value) in environment { setenv(name, value, 1) }
    program.run()
}

/// What a child process runs: a value the exit test captures (exit tests capture only
/// Codable values), each case a function of its own.
enum ChildProgram: Codable, Sendable, Hashable {
    case cleanApp(CleanApp)
    case exitDiagnostic(ExitDiagnostic)

    func run() {
        switch self {
        case .cleanApp(let app): app.run()
        case .exitDiagnostic(let diagnostic): diagnostic.run()
        }
    }
}

/// A store in the directory the parent made for the child (removed by the parent
/// when the child is gone, so a child can keep its contexts alive until it exits).
final class ChildStack: @unchecked Sendable {
    static let directoryVariable = "CTXDEBUG_TEST_CHILD_DIRECTORY"
    static var directory: URL { URL(fileURLWithPath: ProcessInfo.processInfo.environment[directoryVariable]!) }

    let coordinator: PersistentStoreCoordinator

    init(_ name: String = "Test") {
        coordinator = PersistentStoreCoordinator(managedObjectModel: testModel)
        try! coordinator.addPersistentStore(at: Self.directory.appendingPathComponent("\(name).sqlite"))
    }

    func privateContext(_ name: String) -> ManagedObjectContext {
        let c = ManagedObjectContext(concurrencyType: .privateQueue)
        c.persistentStoreCoordinator = coordinator
        c.name = name
        return c
    }

    /// A container as an app makes one, its store in the child's directory.
    static func container(_ name: String) -> PersistentContainer {
        let container = PersistentContainer(name: name, managedObjectModel: testModel, storeURL: directory.appendingPathComponent("\(name).sqlite"))
        try! container.loadPersistentStores()
        return container
    }
}

/// Runs `body` on the main queue and waits for it (the UI's code).
func onMain<T>(_ body: () throws -> T) rethrows -> T {
    try DispatchQueue.main.sync(execute: body)
}

/// Objects are not Sendable; a child program hands them between its own steps on
/// one queue, where a real app would keep them in a view controller.
struct Held<T>: @unchecked Sendable {
    let value: T
}
