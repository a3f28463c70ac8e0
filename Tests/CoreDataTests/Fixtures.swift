import Foundation

/// Where the test data is: our fixtures (Tests/CoreDataTests/Fixtures, excluded from
/// the target) and the chapter's real SurfJournal model and seed store, kept beside the
/// repository in ../shared/real-apps/surfjournal (CI has them there too).
enum Fixtures {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    static let surfJournal = repositoryRoot.appendingPathComponent("../shared/real-apps/surfjournal").standardizedFileURL
    static let surfJournalModel = surfJournal.appendingPathComponent("SurfJournalModel.xcdatamodeld")
    static let surfJournalSeed = surfJournal.appendingPathComponent("CoreDataSeed/SurfJournalModel.sqlite")
}
