// Our driver for Core Data by Tutorials' WorldCup (ch. 5, NSFetchedResultsController):
// its ViewController's results controller (sections by qualifying zone, sorted by zone,
// wins and name), without UIKit, through its own CoreDataStack and Team class: the first
// fetch, a win added as a tap on a row does (the team moves up its section), and a team
// added in a new zone, each seen by the controller's delegate.
import CoreData
import Foundation

let stack = CoreDataStack(modelName: "WorldCup")
let context = stack.managedContext
for (name, zone, wins) in [("Brazil", "CONMEBOL", 3), ("Argentina", "CONMEBOL", 2), ("Germany", "UEFA", 4), ("Spain", "UEFA", 4), ("Italy", "UEFA", 1)] {
    let team = Team(context: context)
    team.teamName = name
    team.qualifyingZone = zone
    team.wins = Int32(wins)
    team.imageName = name.lowercased()
}
stack.saveContext()

final class Changes: NSObject, NSFetchedResultsControllerDelegate {
    var log: [String] = []
    func controller(_ controller: NSFetchedResultsController<any NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        let name = (anObject as? Team)?.teamName ?? "?"
        log.append("\(type == .insert ? "insert" : type == .delete ? "delete" : type == .move ? "move" : "update") \(name)")
    }
    func controller(_ controller: NSFetchedResultsController<any NSFetchRequestResult>, didChange sectionInfo: any NSFetchedResultsSectionInfo, atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
        log.append("section \(type == .insert ? "insert" : "delete") \(sectionInfo.name)")
    }
}

let fetchRequest: NSFetchRequest<Team> = Team.fetchRequest()
fetchRequest.sortDescriptors = [
    NSSortDescriptor(key: "qualifyingZone", ascending: true), NSSortDescriptor(key: "wins", ascending: false),
    NSSortDescriptor(key: "teamName", ascending: true),
]
let controller = NSFetchedResultsController(fetchRequest: fetchRequest, managedObjectContext: context, sectionNameKeyPath: "qualifyingZone", cacheName: "worldCup")
let changes = Changes()
controller.delegate = changes
try controller.performFetch()
precondition(controller.sections?.map(\.name) == ["CONMEBOL", "UEFA"])
precondition(controller.sections?[1].numberOfObjects == 3)
precondition(controller.object(at: IndexPath(row: 0, section: 1)).teamName == "Germany")

// A tap on Italy's row, three times: Italy moves to the top of UEFA.
let italy = controller.object(at: IndexPath(row: 2, section: 1))
for _ in 0..<4 { italy.wins += 1; stack.saveContext() }
precondition(controller.object(at: IndexPath(row: 0, section: 1)).teamName == "Italy", "Italy leads UEFA")
precondition(changes.log.contains("move Italy"), "the delegate saw Italy move: \(changes.log)")

let secret = Team(context: context)
secret.teamName = "Wenderland"
secret.qualifyingZone = "Secret"
secret.imageName = "wenderland-flag"
stack.saveContext()
precondition(controller.sections?.map(\.name) == ["CONMEBOL", "Secret", "UEFA"])
precondition(changes.log.contains("section insert Secret") && changes.log.contains("insert Wenderland"), "\(changes.log)")
print("WorldCup: \(controller.fetchedObjects?.count ?? 0) teams in \(controller.sections?.count ?? 0) zones; the delegate saw \(changes.log.count) changes")
