import CoreData
import UIKit

final class DownloadsViewController: UIViewController {
    var stack: DownloadStack!
    private var timer: Timer?

    // context-without-perform, the bug: a timer scheduled from viewDidLoad fires on the
    // main run loop, and saves the private sync context there, outside its perform.
    override func viewDidLoad() {
        super.viewDidLoad()
        timer = Timer.scheduledTimer(withTimeInterval: 30, repeats: true) { _ in
            try? self.stack.syncContext.save() // expect: context-without-perform
        }
    }

    // The correct twin.
    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        timer = Timer.scheduledTimer(withTimeInterval: 30, repeats: true) { _ in
            let context = self.stack.syncContext
            context.perform { try? context.save() }
        }
    }
}
