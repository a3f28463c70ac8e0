// The SurfJournal flows on a ported model layer in the Xcode-era style (App/SurfJournal),
// over the chapter's own model and seeded store (../shared/real-apps/surfjournal, copied
// first: the seed is never opened in place). Plain Core Data, as it would run on Apple's:
// fetch newest first, an entry edited in a child of the main context, child then parent
// saved, and the export in performBackgroundTask through csv() and a FileHandle with the
// hop to the main queue. `Scripts/check-port-consumer` runs it under `ctxdebug check`.
import CoreData
import Foundation

let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../..").standardizedFileURL
let chapter = repository.appendingPathComponent("../shared/real-apps/surfjournal").standardizedFileURL

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("JournalCheck: FAILED: \(message)\n".utf8))
  exit(1)
}

let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("journal-check-\(getpid())")
try! FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
for suffix in ["", "-wal", "-shm"] {
  let seed = chapter.appendingPathComponent("CoreDataSeed/SurfJournalModel.sqlite\(suffix)")
  let copy = work.appendingPathComponent("SurfJournalModel.sqlite\(suffix)")
  guard (try? FileManager.default.copyItem(at: seed, to: copy)) != nil else {
    fail("cannot copy \(seed.path): the chapter's seed is expected at ../shared/real-apps/surfjournal")
  }
  // The shared seed is read-only; the copy is the app's own store, written to.
  try! FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: copy.path)
}
guard let model = NSManagedObjectModel(contentsOf: chapter.appendingPathComponent("SurfJournalModel.xcdatamodeld")) else {
  fail("cannot read the chapter's model")
}
let stack = JournalStack(model: model, storeURL: work.appendingPathComponent("SurfJournalModel.sqlite"))

@Sendable func newestFirst() -> NSFetchRequest<JournalEntry> {
  let request: NSFetchRequest<JournalEntry> = JournalEntry.fetchRequest()
  request.sortDescriptors = [NSSortDescriptor(key: JournalEntry.sortKey, ascending: false)]
  return request
}

let seeded = try! stack.mainContext.fetch(newestFirst())
if seeded.isEmpty { fail("the seed returned no entries") }
if !zip(seeded, seeded.dropFirst()).allSatisfy({ ($0.date ?? .distantPast) >= ($1.date ?? .distantPast) }) {
  fail("the entries are not newest first")
}

// The edit screen: a child of the main context, saved into it, then the main context saved.
let child = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
child.parent = stack.mainContext
let entry = JournalEntry(context: child)
entry.date = Date()
entry.height = "4-5"
entry.period = "11"
entry.wind = "Light offshore"
entry.location = "Ported Point"
entry.rating = 4
try! child.save()
if !stack.mainContext.hasChanges { fail("the child's save did not reach the main context") }
stack.saveContext()

// The export, as the final app runs it.
let exportPath = work.appendingPathComponent("export.csv").path
stack.storeContainer.performBackgroundTask { context in
  let results = (try? context.fetch(newestFirst())) ?? []
  _ = FileManager.default.createFile(atPath: exportPath, contents: Data(), attributes: nil)
  guard let handle = FileHandle(forWritingAtPath: exportPath) else { fail("cannot write \(exportPath)") }
  for journalEntry in results {
    handle.seekToEndOfFile()
    handle.write(journalEntry.csv().data(using: .utf8, allowLossyConversion: false)!)
  }
  handle.closeFile()
  DispatchQueue.main.async {
    let lines = (try? String(contentsOfFile: exportPath, encoding: .utf8))?.split(separator: "\n") ?? []
    if lines.count != seeded.count + 1 { fail("the export has \(lines.count) lines for \(seeded.count + 1) entries") }
    if lines.first?.hasSuffix(",4-5,11,Light offshore,Ported Point,4,") != true { fail("the newest line is \(lines.first ?? "missing")") }
    try? FileManager.default.removeItem(at: work)
    print("JournalCheck: \(seeded.count) seeded entries newest first, one added through a child context, \(lines.count) exported")
    exit(0)
  }
}
dispatchMain()
