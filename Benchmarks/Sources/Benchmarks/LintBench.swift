import Foundation

/// Item 8: how fast `ctxdebug lint` reads Core Data sources. A generated tree of files
/// written as an app writes them (an `NSManagedObject` subclass, a Core Data stack, view
/// controllers with exports, searches and imports, a did-save observer), each with the
/// same few bugs, linted whole by a child process, start to exit.
enum LintBench {
    /// The bugs each generated file holds: what every run must find.
    static let findingsPerFile = 4

    static func run(lines target: Int, repetitions: Int, work: URL) throws -> BenchItem {
        let tree = work.appendingPathComponent("lint-tree")
        let (files, lines) = try LintTree.write(lines: target, to: tree)
        // One run read back: every bug found, every line counted.
        let checked = try BenchSupport.run(BenchSupport.selfExecutable, ["lint", "--format", "json", tree.path], work: work)
        guard checked.status == 1, let output = try? JSONDecoder().decode(Output.self, from: checked.standardOutput),
            output.lineCount == lines, output.findings.count == files * findingsPerFile
        else {
            throw BenchError("`ctxdebug lint` on the generated tree (\(files) files, \(lines) lines, \(files * findingsPerFile) bugs) did not find them all; status \(checked.status): \(checked.standardError.suffix(1_500))")
        }
        // Then the timed runs, each watched for its peak memory (VmHWM).
        var rates: [Double] = [], seconds: [Double] = [], bytesPerLine: [Double] = [], cpuRates: [Double] = []
        for _ in 0..<repetitions {
            let run = try MeasuredProcess.run(BenchSupport.selfExecutable, ["lint", "--format", "json", tree.path], work: work)
            guard run.status == 1 else { throw BenchError("`ctxdebug lint` exited with \(run.status): \(run.standardError.suffix(1_500))") }
            seconds.append(run.seconds)
            rates.append(Double(lines) / run.seconds)
            bytesPerLine.append(Double(run.peakBytes) / Double(lines))
            cpuRates.append(Double(lines) / max(run.cpuSeconds, 1e-6))
        }
        let rate = BenchFigure("`ctxdebug lint` (whole process)", unit: "lines/s", samples: rates)
        // Lines per CPU-second (user + system): what the machine's other load changes
        // least; twice it bounds what 2 idle cores could do.
        let cpuRate = BenchFigure("lines per CPU-second (user + system time)", unit: "lines/s", samples: cpuRates)
        let memory = BenchFigure("peak memory per line of input (VmHWM / lines)", unit: "bytes", samples: bytesPerLine)
        let worstMemory = bytesPerLine.max() ?? 0
        return BenchItem(
            id: "8", title: "Static checks (ctxdebug lint)",
            setup: [
                "A generated tree of \(files.formattedCount) Swift files, \(lines.formattedCount) lines in all: each an `NSManagedObject` subclass, a Core Data stack, a view controller (an export, a search, an import, an edit) and a did-save observer, with \(findingsPerFile) bugs. `ctxdebug lint --format json` run once to check that it finds every bug, then \(repetitions) times as a child process (the files in the page cache), timed start to exit, its peak resident set (VmHWM) sampled every 2 ms.",
                "The first pass parses each file, keeps only a summary of it, and runs the rules against an index of that file alone, keeping every question they ask; the second keeps those findings where the project's index answers alike and parses only the other files again. Both run on every core with `DispatchQueue.concurrentPerform`; no syntax tree outlives its file's turn.",
            ],
            figures: [BenchFigure("wall time", unit: "s", samples: seconds), rate, cpuRate, memory],
            targets: [
                BenchTarget(what: "`ctxdebug lint`", target: "≥ 150k lines/s on 2 cores", measured: "\((rate.median / 1e3).benchFormatted)k lines/s", met: rate.median >= 150_000),
                BenchTarget(
                    what: "`ctxdebug lint` peak memory", target: "≤ 0.5 KB per line of input",
                    measured: "\((worstMemory / 1024).benchFormatted) KB per line (the largest of \(repetitions) runs)", met: worstMemory <= 512),
            ],
            detections: nil, skipped: nil, notes: [])
    }

    struct Output: Decodable {
        struct Finding: Decodable { var rule: String }
        var lineCount: Int
        var findings: [Finding]
    }
}

/// Writes the generated tree of item 8.
enum LintTree {
    /// Files of `template` under `directory` until they hold at least `lines` lines.
    static func write(lines target: Int, to directory: URL) throws -> (files: Int, lines: Int) {
        try? FileManager.default.removeItem(at: directory)
        var files = 0, lines = 0
        while lines < target {
            let folder = directory.appendingPathComponent("Feature\(files / 100)")
            if files % 100 == 0 { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
            let text = source(files)
            try Data(text.utf8).write(to: folder.appendingPathComponent("Screen\(files).swift"))
            lines += text.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            files += 1
        }
        return (files, lines)
    }

    /// One file, its names numbered by `n`, with `LintBench.findingsPerFile` bugs: a
    /// main-queue export, a search handing objects to the main queue, a background
    /// context saved outside its perform, and a merge off the main queue.
    static func source(_ n: Int) -> String {
        """
        import CoreData
        import UIKit

        @objc(Spot\(n))
        public class Spot\(n): NSManagedObject {
            @NSManaged public var name: String?
            @NSManaged public var rating: Int16
            @NSManaged public var visited: Date?
        }

        extension Spot\(n) {
            func summary() -> String {
                let name = self.name ?? "unnamed"
                return "\\(name): \\(rating)"
            }
        }

        final class Stack\(n) {
            lazy var container: NSPersistentContainer = {
                let container = NSPersistentContainer(name: "Spots\(n)")
                container.loadPersistentStores { _, error in
                    if let error { fatalError("\\(error)") }
                }
                return container
            }()

            lazy var viewContext\(n): NSManagedObjectContext = {
                let context = container.viewContext
                context.automaticallyMergesChangesFromParent = true
                return context
            }()

            func save() {
                guard viewContext\(n).hasChanges else { return }
                try? viewContext\(n).save()
            }
        }

        final class SpotsViewController\(n): UITableViewController {
            var stack: Stack\(n)!
            var spots: [Spot\(n)] = []
            private var observers: [NSObjectProtocol] = []

            override func viewDidLoad() {
                super.viewDidLoad()
                reload()
                let observer = NotificationCenter.default.addObserver(
                    forName: .NSManagedObjectContextDidSave, object: nil, queue: nil
                ) { [weak self] note in
                    self?.stack.viewContext\(n).mergeChanges(fromContextDidSave: note)
                }
                observers.append(observer)
            }

            func reload() {
                let request = NSFetchRequest<Spot\(n)>(entityName: "Spot\(n)")
                request.fetchBatchSize = 30
                request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
                spots = (try? stack.viewContext\(n).fetch(request)) ?? []
                tableView.reloadData()
            }

            @IBAction func exportTapped(_ sender: Any) {
                let request = NSFetchRequest<Spot\(n)>(entityName: "Spot\(n)")
                let all = (try? stack.viewContext\(n).fetch(request)) ?? []
                let text = all.map { $0.summary() }.joined(separator: "\\n")
                try? text.write(toFile: NSTemporaryDirectory() + "spots\(n).txt", atomically: true, encoding: .utf8)
            }

            func exportInBackground() {
                stack.container.performBackgroundTask { context in
                    let request = NSFetchRequest<Spot\(n)>(entityName: "Spot\(n)")
                    let all = (try? context.fetch(request)) ?? []
                    let text = all.map { $0.summary() }.joined(separator: "\\n")
                    DispatchQueue.main.async {
                        self.title = "\\(text.count) characters exported"
                    }
                }
            }

            func search(_ query: String) {
                stack.container.performBackgroundTask { context in
                    let request = NSFetchRequest<Spot\(n)>(entityName: "Spot\(n)")
                    request.predicate = NSPredicate(format: "name CONTAINS[cd] %@", query)
                    let found = (try? context.fetch(request)) ?? []
                    DispatchQueue.main.async {
                        self.spots = found
                        self.tableView.reloadData()
                    }
                }
            }

            func searchByID(_ query: String) {
                stack.container.performBackgroundTask { context in
                    let request = NSFetchRequest<Spot\(n)>(entityName: "Spot\(n)")
                    request.predicate = NSPredicate(format: "name CONTAINS[cd] %@", query)
                    let ids = ((try? context.fetch(request)) ?? []).map(\\.objectID)
                    DispatchQueue.main.async {
                        let context = self.stack.viewContext\(n)
                        self.spots = ids.compactMap { context.object(with: $0) as? Spot\(n) }
                        self.tableView.reloadData()
                    }
                }
            }

            func importSpots(_ names: [String]) {
                let context = stack.container.newBackgroundContext()
                context.perform {
                    for name in names {
                        let spot = Spot\(n)(context: context)
                        spot.name = name
                        spot.visited = Date()
                    }
                    try? context.save()
                }
            }

            func importOne(_ name: String) {
                let context = stack.container.newBackgroundContext()
                context.performAndWait {
                    let spot = Spot\(n)(context: context)
                    spot.name = name
                }
                try? context.save()
            }

            func rate(_ spot: Spot\(n), stars: Int16) {
                spot.rating = stars
                stack.save()
            }

            override func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int {
                spots.count
            }

            override func tableView(_ tableView: UITableView, cellForRowAt indexPath: IndexPath) -> UITableViewCell {
                let cell = tableView.dequeueReusableCell(withIdentifier: "Spot", for: indexPath)
                let spot = spots[indexPath.row]
                cell.textLabel?.text = spot.name
                cell.detailTextLabel?.text = spot.visited.map { "\\($0)" } ?? "never"
                return cell
            }
        }

        """
    }
}
