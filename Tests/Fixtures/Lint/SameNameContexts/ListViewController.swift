import CoreData
import UIKit

// context-without-perform, a false alarm found on a hand-written app: the importer
// (another file) has a private `context` of its own; this controller's `context`, set
// from outside the project, is another property with the same name. Silent.
/// Handed its context by whoever shows it (a storyboard, another module).
final class ListViewController: UITableViewController {
    var context: NSManagedObjectContext!
    private var items: [NSManagedObject] = []

    override func viewDidLoad() {
        super.viewDidLoad()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        request.fetchLimit = 50
        items = (try? context.fetch(request)) ?? []
    }

    override func tableView(_ tableView: UITableView, cellForRowAt indexPath: IndexPath) -> UITableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "Cell", for: indexPath)
        cell.textLabel?.text = items[indexPath.row].value(forKey: "name") as? String
        return cell
    }
}
