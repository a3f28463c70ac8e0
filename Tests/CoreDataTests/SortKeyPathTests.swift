import CoreData
import TestSupport
import Testing

/// An entity class as Apple's Earthquakes sample declares one: non-optional `@NSManaged`
/// properties (ported here to key-value accessors that force their values).
final class Quake: NSManagedObject {
    var time: Date {
        get { value(forKey: "time") as! Date }
        set { setValue(newValue, forKey: "time") }
    }
    var place: String {
        get { value(forKey: "place") as! String }
        set { setValue(newValue, forKey: "place") }
    }
    var code: UUID {
        get { value(forKey: "code") as! UUID }
        set { setValue(newValue, forKey: "code") }
    }
}

/// `NSSortDescriptor(keyPath: \Quake.time, ascending: false)`, as the Earthquakes
/// sample sorts. Finding the key a key path reads must not call the getter with no
/// value behind it: a non-optional property's getter traps on nil.
@Suite struct SortKeyPathTests {
    static func container(in dir: TempDirectory) throws -> NSPersistentContainer {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let a = NSAttributeDescription()
            a.name = name
            a.attributeType = type
            a.isOptional = false
            return a
        }
        let quake = NSEntityDescription()
        quake.name = "Quake"
        quake.managedObjectClassName = "Quake"
        quake.properties = [attribute("time", .dateAttributeType), attribute("place", .stringAttributeType), attribute("code", .UUIDAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [quake]
        let container = NSPersistentContainer(name: "Earthquakes", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: dir.file("Earthquakes.sqlite"))]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    @Test("a key path to a non-optional property sorts by its attribute without calling the getter on nil")
    func nonOptionalKeyPathsSort() throws {
        let dir = TempDirectory("sort-key-path")
        let container = try Self.container(in: dir)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for (i, place) in ["Reno", "Anchorage", "Lima"].enumerated() {
                let q = Quake(context: context)
                q.time = Date(timeIntervalSinceReferenceDate: Double(i) * 60)
                q.place = place
                q.code = UUID()
            }
            try context.save()
            let byTime = NSFetchRequest<Quake>(entityName: "Quake")
            byTime.sortDescriptors = [NSSortDescriptor(keyPath: \Quake.time, ascending: false)]
            #expect(try context.fetch(byTime).map(\.place) == ["Lima", "Anchorage", "Reno"])
            let byPlace = NSFetchRequest<Quake>(entityName: "Quake")
            byPlace.sortDescriptors = [NSSortDescriptor(keyPath: \Quake.place, ascending: true)]
            #expect(try context.fetch(byPlace).map(\.place) == ["Anchorage", "Lima", "Reno"])
            let byCode = NSFetchRequest<Quake>(entityName: "Quake")
            byCode.sortDescriptors = [NSSortDescriptor(keyPath: \Quake.code, ascending: true)]
            #expect(try context.fetch(byCode).count == 3)
        }
    }
}
