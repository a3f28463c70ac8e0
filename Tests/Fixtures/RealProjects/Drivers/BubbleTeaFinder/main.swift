// Our driver for Core Data by Tutorials' BubbleTeaFinder (ch. 4, intermediate fetching):
// the fetches its ViewController and FilterViewController make, without UIKit, through its
// own CoreDataStack and entity classes: count result types, count(for:), a sum: in a
// dictionary fetch, predicates through to-one key paths, a sort with a selector, a batch
// update and an asynchronous fetch.
import CoreData
import Foundation

let stack = CoreDataStack(modelName: "BubbleTeaFinder")
let context = stack.managedContext
let seeds: [(name: String, price: String, specials: Int32, distance: Float, tips: Int32)] = [
    ("Boba Guys", "$$", 2, 300, 10), ("Kung Fu Tea", "$", 0, 900, 0), ("Tea Era", "$", 1, 450, 3),
    ("Ten Ren", "$$$", 0, 1200, 7), ("chatime", "$$", 3, 100, 0),
]
for seed in seeds {
    let venue = Venue(context: context)
    venue.name = seed.name
    venue.specialCount = seed.specials
    let price = PriceInfo(context: context)
    price.priceCategory = seed.price
    venue.priceInfo = price
    let location = Location(context: context)
    location.distance = seed.distance
    venue.location = location
    let stats = Stats(context: context)
    stats.tipCount = seed.tips
    venue.stats = stats
}
stack.saveContext()

func count(_ predicate: NSPredicate) throws -> Int {
    let request = NSFetchRequest<NSNumber>(entityName: "Venue")
    request.resultType = .countResultType
    request.predicate = predicate
    return try context.fetch(request).first?.intValue ?? 0
}
let check1 = try { try count(NSPredicate(format: "%K == %@", "priceInfo.priceCategory", "$")) == 2 }()
precondition(check1)
let check2 = try { try count(NSPredicate(format: "%K == %@", "priceInfo.priceCategory", "$$")) == 2 }()
precondition(check2)
let expensive: NSFetchRequest<Venue> = Venue.fetchRequest()
expensive.predicate = NSPredicate(format: "%K == %@", "priceInfo.priceCategory", "$$$")
let check3 = try { try context.count(for: expensive) == 1 }()
precondition(check3)

let deals = NSFetchRequest<NSDictionary>(entityName: "Venue")
deals.resultType = .dictionaryResultType
let sum = NSExpressionDescription()
sum.name = "sumDeals"
sum.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "specialCount")])
sum.expressionResultType = .integer32AttributeType
deals.propertiesToFetch = [sum]
let check4 = try { try context.fetch(deals).first?["sumDeals"] as? Int == 6 }()
precondition(check4, "six deals")

let walking: NSFetchRequest<Venue> = Venue.fetchRequest()
walking.predicate = NSCompoundPredicate(andPredicateWithSubpredicates: [
    NSPredicate(format: "%K < 500", "location.distance"), NSPredicate(format: "%K > 0", "stats.tipCount"),
])
walking.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true, selector: Selector("localizedStandardCompare:"))]
let check5 = try { try context.fetch(walking).compactMap(\.name) == ["Boba Guys", "Tea Era"] }()
precondition(check5)
let byDistance: NSFetchRequest<Venue> = Venue.fetchRequest()
byDistance.sortDescriptors = [NSSortDescriptor(key: "location.distance", ascending: true)]
let check6 = try { try context.fetch(byDistance).first?.name == "chatime" }()
precondition(check6)

let batchUpdate = NSBatchUpdateRequest(entityName: "Venue")
batchUpdate.propertiesToUpdate = ["favorite": true]
batchUpdate.affectedStores = context.persistentStoreCoordinator?.persistentStores
batchUpdate.resultType = .updatedObjectsCountResultType
let updated = try context.execute(batchUpdate) as? NSBatchUpdateResult
precondition(updated?.result as? Int == seeds.count, "every venue made a favourite")

let done = DispatchSemaphore(value: 0)
nonisolated(unsafe) var fetched: [Venue] = []
let asyncFetch = NSAsynchronousFetchRequest<Venue>(fetchRequest: Venue.fetchRequest()) { result in
    fetched = result.finalResult ?? []
    done.signal()
}
try context.execute(asyncFetch)
while done.wait(timeout: .now()) == .timedOut { RunLoop.main.run(until: Date().addingTimeInterval(0.01)) }
precondition(fetched.count == seeds.count, "the asynchronous fetch found every venue")
print("BubbleTeaFinder: \(seeds.count) venues, 6 deals, counts and filtered fetches as the app shows them")
