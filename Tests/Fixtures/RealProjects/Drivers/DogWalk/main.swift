// Our driver for Core Data by Tutorials' DogWalk (ch. 3): its ViewController's flows,
// without UIKit, through its own CoreDataStack: find or create Fido, add walks through
// the ordered relationship's mutable copy, delete one, and read them back in a new stack.
import CoreData
import Foundation

let stack = CoreDataStack(modelName: "DogWalk")
let dogFetch: NSFetchRequest<Dog> = Dog.fetchRequest()
dogFetch.predicate = NSPredicate(format: "%K == %@", "name", "Fido")
var currentDog = try stack.managedContext.fetch(dogFetch).first
if currentDog == nil {
    currentDog = Dog(context: stack.managedContext)
    currentDog?.name = "Fido"
    stack.saveContext()
}
let dog = currentDog!
let before = dog.walks?.count ?? 0
let start = Date(timeIntervalSince1970: 1_700_000_000)
for minute in 0..<3 {
    let walk = Walk(context: stack.managedContext)
    walk.date = start.addingTimeInterval(Double(minute) * 60)
    if let walks = dog.walks?.mutableCopy() as? NSMutableOrderedSet {
        walks.add(walk)
        dog.walks = walks
    }
    stack.saveContext()
}
precondition(dog.walks?.count == before + 3, "three walks added")
let removed = dog.walks?[before] as! Walk
stack.managedContext.delete(removed)
stack.saveContext()
precondition(dog.walks?.count == before + 2, "one walk deleted")

// A second stack over the same store reads what the first saved, in order.
let again = CoreDataStack(modelName: "DogWalk")
let fido = try again.managedContext.fetch(dogFetch)
precondition(fido.count == 1, "one Fido")
let dates = (fido[0].walks?.array as? [Walk])?.compactMap(\.date) ?? []
precondition(dates.count == before + 2 && dates.suffix(2) == [start.addingTimeInterval(60), start.addingTimeInterval(120)], "the walks in order: \(dates)")
print("DogWalk: Fido has \(dates.count) walks, in order")
