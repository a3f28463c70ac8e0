import CoreData
import Foundation
import ManagedContext

/// An entity class with both spellings of one attribute: the runtime's typed accessor
/// (`@Attribute`) and Core Data's key-value access, which `ctxdebug port` writes
/// `@NSManaged` properties through.
final class KeyValueEntry: NSManagedObject {
    @Attribute("location") var location: String?
    @Attribute("rating") var rating: Int64 = 0
}

/// Item 13: `value(forKey:)` and `setValue(_:forKey:)` against the typed accessors of
/// the same attributes, on one object inside its context's `performAndWait`, checking off.
enum KeyValueBench {
    static func run(accesses: Int, repetitions: Int, work: URL) throws -> BenchItem {
        let model = ManagedObjectModel(entities: [KeyValueEntry.self])
        let url = work.appendingPathComponent("key-value-\(getpid()).sqlite")
        defer { for file in PersistentContainer.storeFiles(url) { try? FileManager.default.removeItem(at: file) } }
        let container = PersistentContainer(name: "KeyValue", managedObjectModel: model, storeURL: url)
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        var getTyped: [Double] = [], getKeyValue: [Double] = [], setTyped: [Double] = [], setKeyValue: [Double] = []
        var getRatios: [Double] = [], setRatios: [Double] = []
        context.performAndWait {
            let entry = KeyValueEntry(context: context)
            entry.location = "Rincon"
            func perAccess(_ body: () -> Void) -> Double {
                let t0 = benchNow()
                body()
                return Double(benchNow() - t0) / Double(accesses)
            }
            for _ in 0..<repetitions {
                let typedGet = perAccess { for _ in 0..<accesses { benchSink(entry.location?.utf8.count ?? 0) } }
                let keyValueGet = perAccess { for _ in 0..<accesses { benchSink((entry.value(forKey: "location") as? String)?.utf8.count ?? 0) } }
                let typedSet = perAccess { for i in 0..<accesses { entry.rating = Int64(i) } }
                let keyValueSet = perAccess { for i in 0..<accesses { entry.setValue(Int64(i), forKey: "rating") } }
                benchSink(Int(entry.rating))
                getTyped.append(typedGet)
                getKeyValue.append(keyValueGet)
                setTyped.append(typedSet)
                setKeyValue.append(keyValueSet)
                getRatios.append(keyValueGet / typedGet)
                setRatios.append(keyValueSet / typedSet)
            }
        }
        let getRatio = BenchFigure("value(forKey:) ÷ typed get", unit: "×", samples: getRatios)
        let setRatio = BenchFigure("setValue(_:forKey:) ÷ typed set", unit: "×", samples: setRatios)
        return BenchItem(
            id: "13", title: "Key-value access against typed access",
            setup: [
                "One NSManagedObject subclass with `@Attribute(\"location\") var location: String?` and `@Attribute(\"rating\") var rating: Int64`, inserted in a background context; every access inside its `performAndWait`, checking off.",
                "\(accesses) gets of `location` and sets of `rating` per sample, typed then key-value, \(repetitions) samples; a key-value get includes the cast of its `Any` back to `String`.",
            ],
            figures: [
                BenchFigure("typed get", unit: "ns/access", samples: getTyped),
                BenchFigure("value(forKey:)", unit: "ns/access", samples: getKeyValue),
                BenchFigure("typed set", unit: "ns/access", samples: setTyped),
                BenchFigure("setValue(_:forKey:)", unit: "ns/access", samples: setKeyValue),
                getRatio, setRatio,
            ],
            targets: [
                BenchTarget(what: "`value(forKey:)` get", target: "≤ 2× the typed access", measured: "\(getRatio.median.benchFormatted)×", met: getRatio.median <= 2),
                BenchTarget(what: "`setValue(_:forKey:)` set", target: "≤ 2× the typed access", measured: "\(setRatio.median.benchFormatted)×", met: setRatio.median <= 2),
            ],
            detections: nil, skipped: nil, notes: [])
    }
}
