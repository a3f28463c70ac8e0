import Foundation
import Testing
import ManagedContext

/// Two entities with the same attribute names in other orders, and names longer
/// than a small string: each accessor must reach its own entity's slot.
final class Forward: ManagedObject {
    @Attribute("alpha") var alpha: String?
    @Attribute("beta") var beta: Int64?
    @Attribute("a name longer than fifteen bytes") var long: String?
    @Attribute("gamma") var gamma: Double?
}

final class Backward: ManagedObject {
    @Attribute("gamma") var gamma: Double?
    @Attribute("a name longer than fifteen bytes") var long: String?
    @Attribute("beta") var beta: Int64?
    @Attribute("alpha") var alpha: String?
}

/// The attribute an accessor reads is found from its name once per entity layout
/// (the slot table), and by comparing names for a name built at run time.
@Suite struct AttributeLookupTests {
    @Test func accessorsReachTheirOwnEntitysSlotsInModelsOfDifferentLayouts() throws {
        for classes in [[Forward.self, Backward.self], [Backward.self], [Forward.self]] as [[ManagedObject.Type]] {
            let model = ManagedObjectModel(entities: classes)
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = PersistentStoreCoordinator(managedObjectModel: model)
            context.performAndWait {
                for cls in classes {
                    let entity = model.entity(for: cls)
                    let object = cls.init(entity: entity, insertInto: context)
                    if let f = object as? Forward {
                        f.alpha = "a"; f.beta = 2; f.long = "long"; f.gamma = 3.5
                        #expect(f.alpha == "a" && f.beta == 2 && f.long == "long" && f.gamma == 3.5)
                    } else if let b = object as? Backward {
                        b.alpha = "a"; b.beta = 2; b.long = "long"; b.gamma = 3.5
                        #expect(b.alpha == "a" && b.beta == 2 && b.long == "long" && b.gamma == 3.5)
                    }
                    // The values sit at the entity's own indices: its description
                    // reads them by index, in its declared order.
                    let expected: [String: String] = ["alpha": "\"a\"", "beta": "2", "a name longer than fifteen bytes": "\"long\"", "gamma": "3.5"]
                    for attribute in entity.attributes {
                        #expect(object.description.contains("\(attribute.name) = \(expected[attribute.name]!)"), "\(entity.name).\(attribute.name) in \(object)")
                    }
                }
            }
        }
    }

    @Test func aNameBuiltAtRunTimeFindsTheSameAttribute() throws {
        let model = ManagedObjectModel(entities: [Forward.self, Backward.self])
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = PersistentStoreCoordinator(managedObjectModel: model)
        context.performAndWait {
            let b = Backward(context: context)
            b.long = "via the accessor"
            b.beta = 7
            // Heap strings: other bits than the declared literals, same characters.
            let longName = ["a name longer", "than fifteen bytes"].joined(separator: " ")
            let betaName = String("ateb".reversed())
            #expect(b.value(forKey: longName) as? String == "via the accessor")
            #expect(b.value(forKey: betaName) as? Int64 == 7)
            b.setValue("set by a built name", forKey: longName)
            #expect(b.long == "set by a built name")
        }
    }

    /// Core Data's key-value access returns objects (NSString, NSNumber, NSDate,
    /// NSData, nil); here the Swift values of the attribute's type. Its dictionaries
    /// (`changedValues()`, `committedValues(forKeys:)`) hold NSNull for nil.
    @Test func keyValueAccessUsesSwiftValues() throws {
        let stack = try TestStack()
        let context = stack.privateContext()
        try context.performAndWait {
            let s = Sample(context: context)
            let when = Date(timeIntervalSinceReferenceDate: 1_000)
            s.setValue("Rincon", forKey: "name")
            s.setValue(Int16(3), forKey: "small")
            s.setValue(40, forKey: "medium")  // any integer for an integer attribute
            s.setValue(2.5, forKey: "ratio")
            s.setValue(true, forKey: "flag")
            s.setValue(when, forKey: "when")
            s.setValue(Data([1, 2]), forKey: "blob")
            s.setValue(nil, forKey: "large")
            #expect(s.value(forKey: "name") as? String == "Rincon")
            #expect(s.value(forKey: "small") as? Int16 == 3)
            #expect(s.value(forKey: "medium") as? Int32 == 40)
            #expect(s.value(forKey: "ratio") as? Double == 2.5)
            #expect(s.value(forKey: "flag") as? Bool == true)
            #expect(s.value(forKey: "when") as? Date == when)
            #expect(s.value(forKey: "blob") as? Data == Data([1, 2]))
            #expect(s.value(forKey: "large") == nil)
            #expect(s.small == 3 && s.medium == 40 && s.flag == true && s.when == when)
            try context.save()
            s.setValue(NSNull(), forKey: "name")
            let changed = s.changedValues()
            #expect(Array(changed.keys) == ["name"])
            #expect(changed["name"] is NSNull)
            #expect(s.committedValues()["name"] as? String == "Rincon")
            #expect(s.committedValues()["large"] is NSNull)
        }
    }

    @Test func aValueOfTheWrongTypeStopsWithCoreDatasMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let stack = try! TestStack()
            let context = stack.privateContext()
            context.performAndWait { Sample(context: context).setValue("three", forKey: "small") }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Unacceptable type of value for attribute: property = \"small\""), "\(stderr)")
    }
}
