import CoreData
import Foundation

/// Item 16: a history-tracked save against an untracked one, per row. Two stores of the
/// same model, one opened with `NSPersistentHistoryTrackingKey`; the same saves on each,
/// alternated round by round: inserts of `rowsPerSave` notes, then an update of each.
/// Only `save()` is timed (the objects are made and changed before the clock starts):
/// what history adds is its ATRANSACTION row and one ACHANGE row per object.
enum HistoryBench {
    static func run(rowsPerSave: Int, saves: Int, repetitions: Int, work: URL) throws -> BenchItem {
        let plain = try container(work.appendingPathComponent("history-off.sqlite"), tracking: false)
        let tracked = try container(work.appendingPathComponent("history-on.sqlite"), tracking: true)
        var insertOff: [Double] = [], insertOn: [Double] = [], updateOff: [Double] = [], updateOn: [Double] = []
        var insertRatio: [Double] = [], updateRatio: [Double] = []
        for _ in 0..<repetitions {
            let off = try measure(plain, rowsPerSave: rowsPerSave, saves: saves)
            let on = try measure(tracked, rowsPerSave: rowsPerSave, saves: saves)
            insertOff.append(off.insert)
            insertOn.append(on.insert)
            updateOff.append(off.update)
            updateOn.append(on.update)
            insertRatio.append(on.insert / off.insert)
            updateRatio.append(on.update / off.update)
        }
        let figures = [
            BenchFigure("insert save, untracked", unit: "ns/row", samples: insertOff),
            BenchFigure("insert save, history-tracked", unit: "ns/row", samples: insertOn),
            BenchFigure("insert save, tracked / untracked", unit: "×", samples: insertRatio),
            BenchFigure("update save, untracked", unit: "ns/row", samples: updateOff),
            BenchFigure("update save, history-tracked", unit: "ns/row", samples: updateOn),
            BenchFigure("update save, tracked / untracked", unit: "×", samples: updateRatio),
        ]
        let worst = max(figures[2].median, figures[5].median)
        return BenchItem(
            id: "16", title: "A history-tracked save against an untracked one",
            setup: [
                "Two stores of one model (Note: title, body, count), one opened with NSPersistentHistoryTrackingKey; per sample, on each in turn: \(saves) saves of \(rowsPerSave) inserted notes, then \(saves) saves updating the title of each of them.",
                "Only `save()` is timed, per row; the ratio is taken within each round (tracked over untracked of the same round), \(repetitions) rounds.",
            ],
            figures: figures,
            targets: [
                BenchTarget(
                    what: "a history-tracked save, per row", target: "≤ 1.3× an untracked one", measured: "\(worst.benchFormatted)× (the larger of insert and update)",
                    met: worst <= 1.3)
            ],
            detections: nil, skipped: nil, notes: [])
    }

    private static func container(_ url: URL, tracking: Bool) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "HistoryBench", managedObjectModel: model())
        let description = NSPersistentStoreDescription(url: url)
        description.setOption(tracking as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    /// Nanoseconds per row of the insert saves and of the update saves.
    private static func measure(_ container: NSPersistentContainer, rowsPerSave: Int, saves: Int) throws -> (insert: Double, update: Double) {
        let context = container.newBackgroundContext()
        context.transactionAuthor = "bench"
        return try context.performAndWait {
            var insertTime: UInt64 = 0, updateTime: UInt64 = 0
            var batches: [[NSManagedObject]] = []
            for s in 0..<saves {
                let batch = (0..<rowsPerSave).map { i in
                    let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
                    note.setValue("note \(s).\(i)", forKey: "title")
                    note.setValue("body of the note", forKey: "body")
                    note.setValue(Int64(i), forKey: "count")
                    return note
                }
                let t0 = benchNow()
                try context.save()
                insertTime += benchNow() - t0
                batches.append(batch)
            }
            for batch in batches {
                for note in batch { note.setValue("renamed", forKey: "title") }
                let t0 = benchNow()
                try context.save()
                updateTime += benchNow() - t0
            }
            context.reset()
            let rows = Double(saves * rowsPerSave)
            return (Double(insertTime) / rows, Double(updateTime) / rows)
        }
    }

    private static func model() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let a = NSAttributeDescription()
            a.name = name
            a.attributeType = type
            a.isOptional = true
            return a
        }
        let note = NSEntityDescription()
        note.name = "Note"
        note.managedObjectClassName = "NSManagedObject"
        note.properties = [attribute("title", .stringAttributeType), attribute("body", .stringAttributeType), attribute("count", .integer64AttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [note]
        return model
    }
}
