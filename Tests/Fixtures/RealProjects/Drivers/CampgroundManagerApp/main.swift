// Our driver for Core Data by Tutorials' CampgroundManager (ch. 7): its services on its
// own CoreDataStack (an SQLite store, where its tests use /dev/null), as the app's view
// controllers use them: camp sites added and fetched by number, a camper added in a
// derived (background) context, and reservations made, one of them invalid.

import CoreData
import Foundation

let stack = CoreDataStack()
let sites = CampSiteService(managedObjectContext: stack.mainContext, coreDataStack: stack)
for _ in 0..<3 {
    _ = sites.addCampSite(sites.getNextCampSiteNumber(), electricity: true, water: false)
}
precondition(sites.getCampSites().compactMap(\.siteNumber).map(\.intValue) == [1, 2, 3])
let derived = stack.newDerivedContext()
let saved = expectSave(of: stack.mainContext)
derived.performAndWait {
    // The service saves the derived context in a perform of its own, then the main context.
    _ = CamperService(managedObjectContext: derived, coreDataStack: stack).addCamper("Johnny Appleseed", phoneNumber: "408-555-1234")
}
// The main context saves in a perform on the main queue: let the run loop drain it.
while saved.wait(timeout: .now()) == .timedOut { RunLoop.main.run(until: Date().addingTimeInterval(0.01)) }
let campers = NSFetchRequest<Camper>(entityName: "Camper")
campers.predicate = NSPredicate(format: "fullName == %@", "Johnny Appleseed")
let camper = try stack.mainContext.fetch(campers).first!
precondition(camper.phoneNumber == "408-555-1234", "the camper saved from the derived context")
let reservations = ReservationService(managedObjectContext: stack.mainContext, coreDataStack: stack)
let site = sites.getCampSite(1)!
let good = reservations.reserveCampSite(site, camper: camper, date: Date(timeIntervalSince1970: 1_700_000_000), numberOfNights: 5)
precondition(good.error == nil && good.reservation?.status == "Reserved")
let bad = reservations.reserveCampSite(site, camper: camper, date: Date(timeIntervalSince1970: 1_700_000_000), numberOfNights: 0)
precondition(bad.error?.code == 5 && bad.reservation?.status == "Invalid")
// The model's reservations relationships are to-one: the camper and site name the latest.
let allReservations = try stack.mainContext.count(for: NSFetchRequest<Reservation>(entityName: "Reservation"))
precondition(allReservations == 2 && camper.reservations === bad.reservation && site.reservations === bad.reservation)
print("CampgroundManager: \(sites.getCampSites().count) sites, a camper saved from a derived context, 2 reservations")

/// A semaphore signalled at the next save of `context` (the derived context's save is
/// pushed to the main context, which the stack saves on its own queue).
func expectSave(of context: NSManagedObjectContext) -> DispatchSemaphore {
    let semaphore = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var token: NSObjectProtocol?
    token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) { _ in
        NotificationCenter.default.removeObserver(token!)
        semaphore.signal()
    }
    return semaphore
}
