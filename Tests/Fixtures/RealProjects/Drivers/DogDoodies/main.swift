// Our driver for Core Data by Tutorials' DogDoodies (ch. 10, NSPersistentCloudKitContainer):
// its Model and Services folders, without SwiftUI, through its own CoreDataStack (a
// CloudKit container, its view context pinned to the current query generation and merging
// from its parent) and PetService: a pet and its activities created and saved, the
// latest walk (date descending, fetchLimit 1) and the pet's activities fetched back, and
// the selected pet kept in UserDefaults as its object ID's URI.
import CoreData
import Foundation

let stack = CoreDataStack(modelName: "DogDoodies")
let service = PetService(context: stack.managedContext)
let pet = service.createPet(name: "Rex")
let start = Date(timeIntervalSince1970: 1_700_000_000)
for (offset, type) in [Activity.ActivityType.walk, .pee, .walk, .poop].enumerated() {
    let activity = Activity(context: stack.managedContext)
    activity.activityType = type.rawValue
    activity.date = start.addingTimeInterval(Double(offset) * 3_600)
    activity.pet = pet
}
stack.saveContext()
precondition(!pet.objectID.isTemporaryID, "the pet saved")

service.selectPet(pet)
let latestWalk = try stack.managedContext.fetch(service.latestActivity(for: .walk))
precondition(latestWalk.count == 1 && latestWalk[0].date == start.addingTimeInterval(7_200), "the latest walk")
let activities = try stack.managedContext.fetch(service.activitiesFetchRequest(for: pet))
precondition(activities.compactMap(\.activityType) == ["poop", "walk", "pee", "walk"], "newest first")
// A background save: the view context is pinned to a query generation, so, as on Apple
// platforms, it sees the save once it merges it (the automatic merge runs later, on the
// main queue) or moves to the current generation, as here.
let background = stack.managedContext.persistentStoreCoordinator.map { coordinator -> NSManagedObjectContext in
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return context
}!
try background.performAndWait {
    let other = PetService(context: background).createPet(name: "Luna")
    other.visible = true
    try background.save()
}
let allPets: NSFetchRequest<Pet> = Pet.fetchRequest()
let pinned = try stack.managedContext.fetch(allPets)
precondition(pinned.count == 1, "the pinned generation does not see the new pet")
try stack.managedContext.setQueryGenerationFrom(.current)
let pets = try stack.managedContext.fetch(allPets)
precondition(Set(pets.compactMap(\.name)) == ["Rex", "Luna"], "both pets")
print("DogDoodies: \(pets.count) pets, \(activities.count) activities; the latest walk found; selected pet \(service.selectedPet()?.name ?? "not found (UserDefaults on Linux keeps a URL as its path)")")
