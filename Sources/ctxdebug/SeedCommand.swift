import ArgumentParser
import Foundation
import ManagedContext
import Replay
import SurfJournal

struct SeedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed",
        abstract: "Create a SurfJournal store with N deterministic entries.",
        discussion: """
            Writes a store in Core Data's SQLite layout (ZJOURNALENTRY, Z_PRIMARYKEY, \
            Z_METADATA). The same N always gives the same entries. Refuses to touch an \
            existing file at PATH.

            Exit status: 0 done; 64 bad flag value; 65 PATH exists or its directory is \
            missing; 74 the store could not be written.
            """)

    @Option(name: .long, help: ArgumentHelp("The store file to create.", valueName: "PATH"))
    var store: String

    @Option(name: .long, help: ArgumentHelp("How many entries to write.", valueName: "N"))
    var entries: Int

    func validate() throws {
        guard entries >= 0 else { throw ValidationError("--entries must be 0 or more (got \(entries)).") }
        guard entries <= 50_000_000 else { throw ValidationError("--entries must be at most 50000000 (got \(entries)).") }
    }

    func run() throws {
        let url = URL(fileURLWithPath: store)
        if FileManager.default.fileExists(atPath: url.path) {
            throw CommandSupport.fail("\(url.path) already exists; seed writes new stores only. Delete it first or choose another --store.", status: .dataError)
        }
        let dir = url.deletingLastPathComponent().path
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
            throw CommandSupport.fail("The directory \(dir) does not exist. Create it first (mkdir -p \(dir)) or choose another --store.", status: .dataError)
        }
        let bar = ProgressBar(label: "seeding", total: entries)
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            try Seeder.seed(storeURL: url, count: entries, progress: { bar.update($0) })
        } catch {
            bar.finish()
            for f in PersistentContainer.storeFiles(url) { try? FileManager.default.removeItem(at: f) }
            throw CommandSupport.fail(error, doing: "seed \(url.path)")
        }
        bar.finish()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        say("Seeded \(entries) entries into \(url.path) in \(String(format: "%.2f", seconds)) s.", to: .standardOutput)
    }
}
