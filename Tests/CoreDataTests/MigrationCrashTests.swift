import Foundation
import Testing
import TestSupport

@_spi(CoreData) import ManagedContext
@testable import CoreData

/// Crash safety of migrations (issue 48): a child process opens a version 1 Contacts
/// store with the version 3 model and the automatic-migration options (two steps: the
/// mapping model with its policy, then the inferred one) and is killed with SIGKILL at a
/// random moment of it, from a thread of its own. After each kill the store must open
/// as it was (version 1, every row) or whole at version 3 (every row in the new shape),
/// never as a mix. The kill moments are spread over the whole migration's duration,
/// measured first in this process. 8 kills always; `RELIABILITY_MIGRATION_CRASH_CYCLES=50`
/// for the long run (as the suite's other RELIABILITY_* variables), `RELIABILITY_SEED`
/// to repeat one.
@Suite(.serialized) struct MigrationCrashTests {
    typealias Contacts = MappingMigrationTests

    static func copy(_ from: URL, to: URL) throws {
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: to.path + suffix)
            if FileManager.default.fileExists(atPath: from.path + suffix) { try FileManager.default.copyItem(atPath: from.path + suffix, toPath: to.path + suffix) }
        }
    }

    /// True when the store is version 1 with all its rows, false when it is version 3
    /// with all its rows (checked by `expectVersion3`); an issue otherwise.
    static func isStillVersion1(_ url: URL, context: String) throws -> Bool? {
        let (v1, v3) = (try Contacts.version(1), try Contacts.current())
        if try StoreFit.of(storeAt: url, model: v1.runtimeModel) == .matches {
            let c = try Contacts.open(v1, url)
            let names = try c.performAndWait { try c.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).compactMap { $0.value(forKey: "name") as? String } }
            #expect(names.count == Contacts.people, "the old store lost rows — \(context)")
            #expect(Set(names).contains("Plato"), "the old store lost its values — \(context)")
            c.persistentStoreCoordinator?.removePersistentStore()
            return true
        }
        if try StoreFit.of(storeAt: url, model: v3.runtimeModel) == .matches {
            try Contacts.expectVersion3(url)
            return false
        }
        Issue.record("the store is neither version 1 nor version 3 — \(context)")
        return nil
    }

    @Test("SIGKILL at random moments of a migration: the old store or the new one, whole")
    func killedWhileMigrating() async throws {
        let cycles = Int(ProcessInfo.processInfo.environment["RELIABILITY_MIGRATION_CRASH_CYCLES"] ?? "") ?? 8
        let seed = UInt64(ProcessInfo.processInfo.environment["RELIABILITY_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64.max)
        var rng = SplitMix(seed: seed)
        let dir = TempDirectory("migration-crash")
        let template = dir.file("Template.sqlite"), url = dir.file("Contacts.sqlite")
        try Contacts.v1Store(at: template)
        // How long the whole migration takes here, to spread the kills over it.
        try Self.copy(template, to: url)
        let start = Date()
        _ = try Contacts.open(try Contacts.current(), url, options: Contacts.automatic)
        let duration = max(Date().timeIntervalSince(start), 0.01)
        var old = 0, new = 0
        for cycle in 1...cycles {
            try Self.copy(template, to: url)
            let delay = UInt32.random(in: 0...UInt32(duration * 2.5e6), using: &rng)
            await #expect(processExitsWith: .signal(SIGKILL)) { [path = url.path as String, delay = delay as UInt32] in
                NSEntityMigrationPolicy.register(PersonSplitPolicy.self)
                Thread.detachNewThread {
                    usleep(delay)
                    kill(getpid(), SIGKILL)
                }
                _ = try? MappingMigrationTests.open(try MappingMigrationTests.current(), URL(fileURLWithPath: path), options: MappingMigrationTests.automatic)
                kill(getpid(), SIGKILL)
            }
            let context = "cycle \(cycle) of \(cycles), killed \(delay / 1000) ms in (seed \(seed); RELIABILITY_SEED=\(seed) repeats it)"
            switch try Self.isStillVersion1(url, context: context) {
            case true?: old += 1
            case false?: new += 1
            case nil: break
            }
            // And the store, whichever it is, migrates (on) when opened again.
            _ = try Contacts.open(try Contacts.current(), url, options: Contacts.automatic)
            try Contacts.expectVersion3(url)
        }
        print("migration crash safety: \(cycles) SIGKILLs in a \(Int(duration * 1000)) ms migration: \(old) left the old store, \(new) the new one; seed \(seed)")
        #expect(old + new == cycles)
        if cycles >= 20 { #expect(old > 0 && new > 0, "the kills should land both before and after the migration's commit") }
    }
}
