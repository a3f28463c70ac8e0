import CoreData
import Foundation

/// Item 15: what a uniqueness constraint costs a save, per row. The same entity with and
/// without `uniquenessConstraints = [["code"]]`, each sample a fresh store and one save of
/// `rows` new objects (each constrained insert asks its unique index once), then the
/// upsert an import does: the same codes saved again under the object-trump policy.
enum ConstraintSaveBench {
    static func model(constrained: Bool) -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let a = NSAttributeDescription()
            a.name = name
            a.attributeType = type
            return a
        }
        let station = NSEntityDescription()
        station.name = "Station"
        station.properties = [attribute("code", .stringAttributeType), attribute("name", .stringAttributeType), attribute("elevation", .doubleAttributeType)]
        if constrained { station.uniquenessConstraints = [["code"]] }
        let model = NSManagedObjectModel()
        model.entities = [station]
        return model
    }

    /// Microseconds per row of one save of `rows` inserts into a new store; and, when
    /// `upsert`, of a second save of the same codes into the filled store.
    static func sample(constrained: Bool, rows: Int, work: URL, upsert: Bool) throws -> (insert: Double, upsert: Double?) {
        let url = work.appendingPathComponent("constraints-\(constrained)-\(UUID().uuidString).sqlite")
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        }
        let container = NSPersistentContainer(name: "Stations", managedObjectModel: model(constrained: constrained))
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        let context = container.newBackgroundContext()
        context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        func saveRows(_ name: String) throws -> Double {
            var result: Result<Double, any Error> = .success(0)
            context.performAndWait {
                for i in 0..<rows {
                    let station = NSEntityDescription.insertNewObject(forEntityName: "Station", into: context)
                    station.setValue("S\(i)", forKey: "code")
                    station.setValue(name, forKey: "name")
                    station.setValue(Double(i), forKey: "elevation")
                }
                let t0 = benchNow()
                result = Result { try context.save() }.map { Double(benchNow() - t0) / Double(rows) / 1e3 }
                context.reset()
            }
            return try result.get()
        }
        let insert = try saveRows("first")
        return (insert, upsert ? try saveRows("again") : nil)
    }

    static func run(rows: Int, repetitions: Int, work: URL) throws -> BenchItem {
        var plain: [Double] = [], constrained: [Double] = [], upserts: [Double] = [], ratios: [Double] = []
        for _ in 0..<repetitions {
            let without = try sample(constrained: false, rows: rows, work: work, upsert: false).insert
            let with = try sample(constrained: true, rows: rows, work: work, upsert: true)
            plain.append(without)
            constrained.append(with.insert)
            upserts.append(with.upsert ?? 0)
            ratios.append(with.insert / without)
        }
        let ratio = BenchFigure("constrained ÷ unconstrained, per row", unit: "×", samples: ratios)
        return BenchItem(
            id: "15", title: "A save with a uniqueness constraint",
            setup: [
                "An entity `Station` (code, name: String; elevation: Double), with and without `uniquenessConstraints = [[\"code\"]]`; each sample a new WAL store, \(rows) objects inserted in a background context and saved at once (the save alone is timed).",
                "Then, on the constrained store, the same \(rows) codes inserted again and saved under `NSMergeByPropertyObjectTrumpMergePolicy`: every row an upsert into the existing one. \(repetitions) samples, the two stores of a sample made side by side.",
            ],
            figures: [
                BenchFigure("save, no constraint", unit: "µs/row", samples: plain),
                BenchFigure("save, unique `code`", unit: "µs/row", samples: constrained),
                ratio,
                BenchFigure("upsert save (every row conflicts, object trump)", unit: "µs/row", samples: upserts),
            ],
            targets: [
                BenchTarget(what: "a save with a uniqueness constraint", target: "≤ 1.2× one without, per row", measured: "\(ratio.median.benchFormatted)×", met: ratio.median <= 1.2)
            ],
            detections: nil, skipped: nil, notes: [])
    }
}
