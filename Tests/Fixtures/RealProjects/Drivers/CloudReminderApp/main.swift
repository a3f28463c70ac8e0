// Our driver for 9oya/CloudReminder's model layer: its CoreDataStack (a CloudKit container
// on its own SQLite store, the view context pinned to the current query generation) and its
// NotiGroupMOService and NotiMOService, as its interactors use them: reminder groups with
// their week days created, the home screen's results controller (by hour, minute,
// content), an update and a delete, and what the main context saved read back by a
// derived context from the store.
import CoreData
import Foundation

/// The services save in a perform on the main queue: let the run loop drain it.
func drainMainQueue(_ stack: CoreDataStack) {
    let drained = DispatchSemaphore(value: 0)
    stack.mainContext.perform { drained.signal() }
    while drained.wait(timeout: .now()) == .timedOut { RunLoop.main.run(until: Date().addingTimeInterval(0.01)) }
}

let stack = CoreDataStack()
let groups = NotiGroupMOService(coreDataStack: stack)
let days = NotiMOService(coreDataStack: stack)
let lunch = groups.createNotiGroupMO(id: UUID(), hour: 12, minute: 30, isOn: true, title: "Lunch", content: "It's lunch time~!!")
let wakeUp = groups.createNotiGroupMO(id: UUID(), hour: 7, minute: 0, isOn: true, title: "Wake up", content: "Good morning")
let walk = groups.createNotiGroupMO(id: UUID(), hour: 7, minute: 0, isOn: false, title: "Walk", content: "A walk")
for day in [WeekCode.Mon, .Wed, .Fri] {
    _ = days.createNotiMO(notiGroupMO: lunch, id: UUID(), weekCode: day, isOn: true)
}
drainMainQueue(stack)
precondition(!stack.mainContext.hasChanges, "the services saved")

let frc = groups.getNotiGroupMOFRC()
try frc.performFetch()
precondition(frc.fetchedObjects?.compactMap(\.title) == ["Walk", "Wake up", "Lunch"], "by hour, minute, content")
let week = days.convertNotiMOArrToDaysOfWeekDict(notiMOArr: days.getAllNotiMOs() ?? [])
precondition(week.filter(\.value).keys.sorted() == [WeekCode.Mon, .Wed, .Fri].map(\.rawValue), "\(week)")

precondition(groups.updateNotiGroupMO(id: walk.id!, hour: 18, minute: 15, isOn: true, content: "An evening walk")?.hour == 18)
precondition(groups.deleteNotifGroupMOById(id: wakeUp.id!))
drainMainQueue(stack)

// A derived context reads what the main context saved, from the store.
let derived = stack.newDerivedContext()
let saved: [(String, Int16, Int)] = try derived.performAndWait {
    let request: NSFetchRequest<NotiGroupMO> = NotiGroupMO.fetchRequest()
    request.sortDescriptors = [NSSortDescriptor(key: "hour", ascending: true)]
    return try derived.fetch(request).map { ($0.title ?? "", $0.hour, $0.notiMOs?.count ?? 0) }
}
precondition(saved.map(\.0) == ["Lunch", "Walk"] && saved.map(\.1) == [12, 18] && saved.map(\.2) == [3, 0], "\(saved)")
print("CloudReminder: 2 reminder groups saved (one with 3 week days), one updated, one deleted, read back from the store")
