import ArgumentParser
import CoreDataPorter
import Foundation

/// `ctxdebug port SOURCE... [--model M ...] --output DIR [--check]`: copies an Apple app's
/// Core Data model layer into DIR, changed only where Linux needs it, so it builds
/// against ctxdebug's `import CoreData`.
struct PortCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "port",
        abstract: "Make an app's Core Data model layer build on Linux: copies with @NSManaged, @objc and #keyPath ported (swift-syntax).",
        discussion: """
            Writes every Swift SOURCE (a file, or a folder searched for .swift files) into \
            DIR under its path relative to the current directory, as NAME.ported.swift, \
            changed only where Linux Swift needs it; the originals are only read. Each written file starts with \
            #sourceLocation(file: "<the original's absolute path>", line: 1) and keeps every \
            line where it was, so compiler errors, the checker's reports and explore's swim \
            lanes name your own file and line.

            What changes:
              @NSManaged var date: Date?
                  a computed property over managedValue(forKey:) and
                  setManagedValue(_:forKey:), with Core Data's bridging (optionals,
                  scalars, NSNumber, NSSet, Set<T>, NSOrderedSet, relationships)
              @NSManaged func addToNotes(_:), and Xcode's other to-many accessors
                  bodies through mutableSetValue(forKey:)
              @objc, @objc(Name), @objcMembers, dynamic
                  removed (an entity's class is found by its name anyway)
              #keyPath(Note.folder.name)
                  "folder.name"
              addObserver(x, selector: #selector(m(_:)), name: n, object: o)
                  addObserver(x, name: n, object: o) { observer, note in
                  observer.m(note) }; removeObserver(x) becomes
                  removeObserver(ported: x). Held weakly and removed with x, as
                  Apple's selector observers are.
              let sel = #selector(m(_:)), then addObserver(x, selector: sel, …)
                  let sel = Selector("m:"), and the observer as above
              perform(#selector(m)), perform(NSSelectorFromString("m:"), with: a)
                  m(), m(a): a direct call (try! for a method that throws)
              a file that uses URLSession, URLRequest, HTTPURLResponse
                  gets `import FoundationNetworking`
              import UIKit, import AppKit, import Cocoa
                  moved above the copy behind #if canImport, with Foundation
                  (CoreData for Cocoa) on Linux; a UIKit type still used is a
                  compiler error at your line
              Bundle.main.url(forResource: m, withExtension: "momd") (or a let of "momd")
                  url(forModelResource: m, withExtension: "momd"): the Xcode
                  model m.xcdatamodeld from the program's resources (also
                  path(forResource:ofType:), and "mom")
              x as! NSFetchRequest<Mood>, x as? NSFetchRequest<Mood>
                  NSFetchRequest<Mood>(x), NSFetchRequest<Mood>(fitting: x)
              NSClassFromString(name)
                  NSClassFromString(ported: name)
              a file that names Core Data's types with only import Foundation
                  gets `import CoreData`

            Each --model is copied into DIR, and its entities whose Codegen is "Class \
            Definition" or "Category/Extension" get the files Xcode would generate \
            (Entity+CoreDataClass.swift, Entity+CoreDataProperties.swift, with fetchRequest() \
            and the to-many accessors) in DIR/<path of the model>/<Model>+Generated/.

            What cannot be ported is reported in the compiler's shape, with what to write \
            instead, and nothing is dropped silently:
              App/Model/Watcher.swift:12:23: error: key-value observing (observe(\\.key))
                  needs the Objective-C runtime, which Linux does not have. …
            (KVO on managed objects, key paths with collection operators \
            such as @sum, other #selector uses, perform of a selector that names no method, \
            NSSelectorFromString, @NSManaged functions that are not Xcode's \
            accessors.) The other files are still written.

            A file already as it would be is not written again, so a second run changes \
            nothing and an incremental build stays incremental. Inside `swift build`, the \
            CoreDataPort plugin does the same (docs/coredata-port.md).

            Example:
              ctxdebug port App/Model --model App/Model.xcdatamodeld --output Ported
              # in CI, report only:
              ctxdebug port App/Model --model App/Model.xcdatamodeld --output p --check

            Exit status:
              0   every file ported
              1   a construct cannot be ported (file:line:col: error: … on stderr)
              64  usage error
              65  a source or model cannot be read, or a model is not Core Data's XML
              73  an output file cannot be written
            """
    )

    @Argument(help: ArgumentHelp("Swift files or folders of them to port.", valueName: "source"))
    var sources: [String] = []

    @Option(help: ArgumentHelp("An Xcode model (.xcdatamodeld or .xcdatamodel) the sources use (repeat for more).", valueName: "path"))
    var model: [String] = []

    @Option(help: ArgumentHelp("The folder the ported files are written into.", valueName: "dir"))
    var output: String

    @Flag(help: "Report what cannot be ported, and write nothing.")
    var check = false

    func validate() throws {
        if sources.isEmpty && model.isEmpty {
            throw ValidationError("give the Swift files or folders to port (and --model for the Xcode model), e.g. `ctxdebug port App/Model --model App/Model.xcdatamodeld --output Ported`")
        }
    }

    func run() throws {
        var job = PortJob(sources: sources, models: model, output: output)
        job.checkOnly = check
        let report: PortReport
        do {
            report = try Porter.run(job)
        } catch {
            let status: ExitStatus = error.code == .unwritable ? .cannotCreate : .dataError
            throw CommandSupport.fail("port: \(error)", status: status)
        }
        for d in report.diagnostics { say("\(d)") }
        let verb = check ? "would write" : "wrote"
        func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
        say(
            "ctxdebug port: \(verb) \(count(report.outputs.count, "file", "files")) into \(output): \(count(report.changedCount, "source", "sources")) ported, \(report.unchangedCount) unchanged, \(report.generatedCount) generated; \(count(report.lineCount, "line", "lines")); \(count(report.diagnostics.count, "construct", "constructs")) cannot be ported"
        )
        if !report.diagnostics.isEmpty { throw ExitStatus.failure.exitCode }
    }
}
