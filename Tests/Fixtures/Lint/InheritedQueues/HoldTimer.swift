import CoreData
import Foundation

/// A parameter a function hands on, unchanged, to another holds what it holds: objects
/// of the context every caller got them from (here `existingObject(with:)` in a
/// `guard let`). A `Timer` block scheduled from the main queue runs on the main run loop.
final class Reservation: NSManagedObject {
    @NSManaged var isExpired: Bool
    @NSManaged var note: String?
}

final class HoldTimer {
    let bookingContext: NSManagedObjectContext
    var container: NSPersistentContainer

    init(container: NSPersistentContainer) {
        self.container = container
        bookingContext = container.newBackgroundContext()
    }

    func reservationMade(_ id: NSManagedObjectID) {
        bookingContext.perform {
            guard let reservation = try? self.bookingContext.existingObject(with: id) as? Reservation else { return }
            self.hold(reservation, minutes: 15)
            self.holdFixed(reservation.objectID, minutes: 15)
            self.remember(reservation)
        }
    }

    // The bug: the booking context's reservation, handed on twice, goes into a timer
    // block on the main run loop (object-across-queues) and is read there, outside the
    // booking context's perform (context-without-perform: one finding per object and rule).
    private func hold(_ reservation: Reservation, minutes: Double) {
        DispatchQueue.main.async {
            Timer.scheduledTimer(withTimeInterval: minutes * 60, repeats: false) { _ in
                self.expire(reservation) // expect: object-across-queues
            }
        }
    }

    private func expire(_ reservation: Reservation) {
        guard !reservation.isExpired else { return } // expect: context-without-perform
        bookingContext.perform {
            reservation.isExpired = true
            try? self.bookingContext.save()
        }
    }

    // The correct twin: the objectID crosses, and the check runs inside the perform.
    private func holdFixed(_ reservationID: NSManagedObjectID, minutes: Double) {
        DispatchQueue.main.async {
            Timer.scheduledTimer(withTimeInterval: minutes * 60, repeats: false) { _ in
                self.expireFixed(reservationID)
            }
        }
    }

    private func expireFixed(_ reservationID: NSManagedObjectID) {
        bookingContext.perform {
            guard let reservation = try? self.bookingContext.existingObject(with: reservationID) as? Reservation,
                !reservation.isExpired
            else { return }
            reservation.isExpired = true
            try? self.bookingContext.save()
        }
    }

    // Silent: a timer scheduled inside the booking context's perform is on that queue's
    // thread's run loop, which a dispatch queue does not run: its block's queue is
    // unknown, and `countHolds()` is not placed on the booking context's queue.
    func scheduleCount() {
        bookingContext.perform {
            Timer.scheduledTimer(withTimeInterval: 60, repeats: true) { _ in
                self.countHolds()
            }
        }
    }

    private func countHolds() {
        let request = NSFetchRequest<Reservation>(entityName: "Reservation")
        print((try? container.viewContext.count(for: request)) ?? 0)
    }

    // Silent: `remember(_:)` is also handed a view context's reservation, so its
    // parameter holds objects of either context, and what `log(_:)` is handed is unknown.
    func showLatest(_ id: NSManagedObjectID) {
        guard let latest = try? container.viewContext.existingObject(with: id) as? Reservation else { return }
        remember(latest)
    }

    private func remember(_ reservation: Reservation) {
        DispatchQueue.main.async {
            self.log(reservation)
        }
    }

    private func log(_ reservation: Reservation) {
        print(reservation.note ?? "")
    }
}
