import Foundation
import Testing

@testable import CoreDataPorter

/// Whole runs of the port: the consumer app's model layer and model, written twice, the
/// generated entity classes, and the chapter's own model.
@Suite struct PorterTests {
    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("port-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func files(under root: URL) -> [String: Data] {
        var found: [String: Data] = [:]
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL {
            if let data = FileManager.default.contents(atPath: url.path), !url.hasDirectoryPath {
                var isDirectory: ObjCBool = false
                FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
                if !isDirectory.boolValue { found[String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))] = data }
            }
        }
        return found
    }

    func job(output: URL) -> PortJob {
        let consumer = CoreDataPorterTests.consumerApp.deletingLastPathComponent()
        return PortJob(
            sources: [consumer.appendingPathComponent("App/Model").path], models: [consumer.appendingPathComponent("App/Model.xcdatamodeld").path],
            output: output.path, relativeTo: consumer.path)
    }

    @Test func runningTwiceWritesTheSameFilesAndTouchesNothing() throws {
        let a = try temporaryDirectory()
        let b = try temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: a)
            try? FileManager.default.removeItem(at: b)
        }
        let first = try Porter.run(job(output: a))
        #expect(first.diagnostics.isEmpty)
        #expect(first.changedCount == 3 && first.unchangedCount == 0 && first.generatedCount == 2)
        let written = files(under: a)
        #expect(
            written.keys.sorted() == [
                "App/Model+Generated/Tag+CoreDataClass.swift", "App/Model+Generated/Tag+CoreDataProperties.swift", "App/Model.xcdatamodeld/Model.xcdatamodel/contents",
                "App/Model/Folder.ported.swift", "App/Model/Note.ported.swift", "App/Model/NotebookStore.ported.swift",
            ])
        let dates = try written.keys.map { try FileManager.default.attributesOfItem(atPath: a.appendingPathComponent($0).path)[.modificationDate] as? Date }
        // Again into the same folder: nothing is rewritten. Into another: the same bytes.
        _ = try Porter.run(job(output: a))
        let again = try written.keys.map { try FileManager.default.attributesOfItem(atPath: a.appendingPathComponent($0).path)[.modificationDate] as? Date }
        #expect(dates == again)
        _ = try Porter.run(job(output: b))
        #expect(files(under: b) == written)
        #expect(files(under: a) == written)
    }

    @Test func checkWritesNothing() throws {
        let a = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: a) }
        var check = job(output: a.appendingPathComponent("out"))
        check.checkOnly = true
        let report = try Porter.run(check)
        #expect(report.outputs.count == 6)
        #expect(!FileManager.default.fileExists(atPath: a.appendingPathComponent("out").path))
    }

    @Test func generatedEntityClassesAreXcodesPorted() throws {
        let model = try ModelSummary(contentsOf: CoreDataPorterTests.consumerApp.appendingPathComponent("Model.xcdatamodeld"))
        #expect(model.name == "Model")
        #expect(model.entities.map(\.name) == ["Folder", "Note", "Tag"])
        #expect(model.entities.map(\.codeGenerationType) == [nil, nil, "class"])
        let generated = EntityClassGenerator.files(for: model)
        #expect(generated.map(\.name) == ["Tag+CoreDataClass.swift", "Tag+CoreDataProperties.swift"])
        #expect(generated[0].text.contains("@objc(Tag)\npublic class Tag: NSManagedObject {"))
        #expect(generated[1].text.contains("    @nonobjc public class func fetchRequest() -> NSFetchRequest<Tag> {\n        return NSFetchRequest<Tag>(entityName: \"Tag\")\n    }"))
        #expect(generated[1].text.contains("    @NSManaged public var label: String?\n    @NSManaged public var weight: Double\n    @NSManaged public var note: Note?\n"))
        #expect(generated[1].text.contains("extension Tag : Identifiable {"))
        // Category: the properties file only; to-many and ordered accessors as Xcode writes them.
        var note = model.entities[1]
        note.codeGenerationType = "category"
        let category = EntityClassGenerator.files(for: ModelSummary(name: "M", entities: [model.entities[0], note, model.entities[2]]))
        #expect(category.map(\.name) == ["Note+CoreDataProperties.swift", "Tag+CoreDataClass.swift", "Tag+CoreDataProperties.swift"])
        #expect(category[0].text.contains("    @NSManaged public var pinned: Bool\n    @NSManaged public var rating: Int16\n    @NSManaged public var words: NSNumber?\n"))
        #expect(category[0].text.contains("    @objc(addTagsObject:)\n    @NSManaged public func addToTags(_ value: Tag)\n"))
        let ordered = EntityClassGenerator.toManyAccessors("Folder", .init(name: "notes", destination: "Note", isToMany: true, isOrdered: true), "Note")
        #expect(ordered.contains("    @objc(replaceNotesAtIndexes:withNotes:)\n    @NSManaged public func replaceNotes(at indexes: NSIndexSet, with values: [Note])\n"))
        // Ported, every accessor has a body and nothing is reported.
        let ported = Porter.port(source: generated[1].text + ordered, path: "Tag+CoreDataProperties.swift", sourceLocation: false)
        #expect(ported.diagnostics.isEmpty)
        #expect(!ported.text.contains("@NSManaged") && !ported.text.contains("@objc"))
        #expect(ported.text.contains("public var weight: Double { get { managedValue(forKey: \"weight\") } set { setManagedValue(newValue, forKey: \"weight\") } }"))
    }

    /// The chapter's model (../shared/real-apps/surfjournal, beside the repository) with an
    /// entity file of our own in the Xcode 6 style.
    @Test func theChaptersModelPortsWithAnEntityFile() throws {
        let model = CoreDataPorterTests.packageRoot.appendingPathComponent("../shared/real-apps/surfjournal/SurfJournalModel.xcdatamodeld").standardizedFileURL
        try #require(FileManager.default.fileExists(atPath: model.path), "the chapter's model is not at \(model.path)")
        let summary = try ModelSummary(contentsOf: model)
        #expect(summary.name == "SurfJournalModel")
        #expect(summary.entities.map(\.name) == ["JournalEntry"])
        #expect(summary.entities[0].representedClassName == "SurfJournal.JournalEntry" && summary.entities[0].className == "JournalEntry")
        #expect(summary.entities[0].attributes.map(\.name) == ["date", "height", "location", "period", "rating", "wind"])
        let out = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let fixture = CoreDataPorterTests.fixtures.appendingPathComponent("SurfJournal")
        let report = try Porter.run(PortJob(sources: [fixture.path], models: [model.path], output: out.path, relativeTo: fixture.path))
        #expect(report.diagnostics.isEmpty)
        #expect(report.outputs == ["JournalEntry.ported.swift", "SurfJournalModel.xcdatamodeld"])
        let text = try String(contentsOf: out.appendingPathComponent("JournalEntry.ported.swift"), encoding: .utf8)
        #expect(text.contains("    var rating: NSNumber? { get { managedValue(forKey: \"rating\") } set { setManagedValue(newValue, forKey: \"rating\") } }"))
        #expect(text.contains("NSSortDescriptor(key: \"date\", ascending: false)"))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("SurfJournalModel.xcdatamodeld/SurfJournalModel.xcdatamodel/contents").path))
    }

    /// A model layer with the spellings of issue 46, item 9, across three files: the
    /// model's extension and an observer's selector in another file's constants, a
    /// selector in a local and in a property, a throwing observer, `perform`, casts of
    /// fetch requests, `NSClassFromString`, and only `import Foundation` in each. Every
    /// line stays where it was, and nothing is left to report. (Its copy was
    /// type-checked by hand against a stub of the CoreData API it calls; building it
    /// against CoreData itself belongs in Tests/PortConsumer.)
    @Test func aModelLayerWithConstantsCastsAndPerformPortsWhole() throws {
        let fixture = CoreDataPorterTests.fixtures.appendingPathComponent("Moods")
        let out = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let report = try Porter.run(PortJob(sources: [fixture.path], models: [], output: out.path, relativeTo: fixture.path))
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
        #expect(report.outputs == ["Constants.ported.swift", "Mood.ported.swift", "MoodStore.ported.swift"])
        var ported: [String: [String]] = [:]
        for name in ["Constants", "Mood", "MoodStore"] {
            let original = try String(contentsOf: fixture.appendingPathComponent("\(name).swift"), encoding: .utf8)
            let text = try String(contentsOf: out.appendingPathComponent("\(name).ported.swift"), encoding: .utf8)
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            // Each names Core Data's types (Constants.swift its Selector) with only Foundation: the copy imports CoreData.
            #expect(lines.first == "import CoreData", "\(name)")
            lines = Array(lines.drop { !$0.hasPrefix("#sourceLocation(file:") }.dropFirst().dropLast(2))
            #expect(lines.count == original.split(separator: "\n", omittingEmptySubsequences: false).count - 1, "\(name)")
            ported[name] = [""] + lines  // by line number
        }
        #expect(ported["Constants"]?[8] == "    static let saveSelector = Selector(\"contextDidSave:\")")
        let store = try #require(ported["MoodStore"])
        #expect(store[7] == "    private let refreshSelector: Selector = Selector(\"refresh\")")
        #expect(store[12] == "        center.addObserver(self, name: .NSManagedObjectContextDidSave, object: nil) { observer, note in observer.contextDidSave(note) }")
        #expect(store[13] == "        let sel = Selector(\"importChanges:\"); _ = sel")
        #expect(store[17] == "                           object: nil) { observer, note in try! observer.importChanges(note) }")
        #expect(store[18] == "        refresh()")
        #expect(store[19] == "        self.apply(\"x\")")
        #expect(store[25] == "        Bundle.main.url(forModelResource: ModelConstants.name, withExtension: ModelConstants.modelExtension)")
        #expect(store[29] == "        let request = NSFetchRequest<Mood>(Mood.fetchRequest())")
        #expect(store[35] == "        guard let typed = NSFetchRequest<Mood>(fitting: request) else { return nil }")
        #expect(store[40] == "        NSClassFromString(ported: entity.managedObjectClassName)")
    }

    @Test func badInputsSayWhatToDo() throws {
        #expect(throws: PortError.self) { try Porter.run(PortJob(sources: ["/no/such/file.swift"], models: [], output: "/tmp/x")) }
        do {
            _ = try ModelSummary(contentsOf: CoreDataPorterTests.fixtures.appendingPathComponent("Unportable.swift"))
            Issue.record("a Swift file read as a model")
        } catch {
            #expect(error.code == .badModel)
            #expect(error.message.contains("not a Core Data model"))
        }
    }
}
