import Foundation
import SwiftParser
import Testing

@testable import CoreDataPorter

/// Issue 46, item 9: selectors the port makes calls of, beyond the literal one passed to
/// `addObserver` (PortRewriterTests): one kept in a constant, a throwing method's, and
/// `perform(_:)` (our own fixtures, in the style of real model layers).
@Suite struct PortSelectorTests {
    func lines(_ source: String, index: PortIndex = PortIndex()) -> (lines: [String], diagnostics: [PortDiagnostic]) {
        let result = Porter.port(source: source, path: "/app/Model/File.swift", relationships: [:], index: index, sourceLocation: false)
        return (result.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init), result.diagnostics)
    }

    /// The constant keeps its name and type: CoreData's `Selector` of the selector's
    /// Objective-C name (Linux has no Objective-C one; CoreData's sort descriptors read
    /// it); where it is passed, the observer is ported as if the `#selector` were there.
    @Test func aSelectorKeptInAConstantIsPortedWhereItIsPassed() {
        let source = """
            import CoreData
            final class Stack {
                static let saveSelector = #selector(Stack.contextDidSave(_:))
                private let mergeSelector: Selector = #selector(merge(notification:))
                init(center: NotificationCenter) {
                    let sel = #selector(contextDidSave(_:))
                    center.addObserver(self, selector: sel, name: .NSManagedObjectContextDidSave, object: nil)
                    center.addObserver(self, selector: Stack.saveSelector, name: .NSManagedObjectContextWillSave, object: nil)
                    center.addObserver(self, selector: mergeSelector, name: .merge, object: nil)
                    center.addObserver(self, selector: self.mergeSelector, name: .other, object: nil)
                }
                func contextDidSave(_ note: Notification) {}
                func merge(notification: Notification) {}
            }
            """
        let (lines, diagnostics) = lines(source)
        #expect(diagnostics.isEmpty)
        #expect(lines.count == 14)
        #expect(lines[2] == "    static let saveSelector = Selector(\"contextDidSave:\")")
        #expect(lines[3] == "    private let mergeSelector: Selector = Selector(\"mergeWithNotification:\")")
        // A local that nothing else reads would draw "never used": the copy reads it once.
        #expect(lines[5] == "        let sel = Selector(\"contextDidSave:\"); _ = sel")
        #expect(lines[6] == "        center.addObserver(self, name: .NSManagedObjectContextDidSave, object: nil) { observer, note in observer.contextDidSave(note) }")
        #expect(lines[7] == "        center.addObserver(self, name: .NSManagedObjectContextWillSave, object: nil) { observer, note in observer.contextDidSave(note) }")
        #expect(lines[8] == "        center.addObserver(self, name: .merge, object: nil) { observer, note in observer.merge(notification: note) }")
        #expect(lines[9] == "        center.addObserver(self, name: .other, object: nil) { observer, note in observer.merge(notification: note) }")
    }

    /// A sort descriptor's comparison selector is CoreData's `Selector`, which its sorts read
    /// (docs/coredata-predicates.md): inline, or in a constant.
    @Test func aSortDescriptorsSelectorIsCoreDatas() {
        let source = """
            import CoreData
            let byName = NSSortDescriptor(key: "name", ascending: true, selector: #selector(NSString.localizedStandardCompare(_:)))
            let compare = #selector(NSString.caseInsensitiveCompare(_:))
            let byTitle = NSSortDescriptor(key: "title", ascending: false, selector: compare)
            """
        let (lines, diagnostics) = lines(source)
        #expect(diagnostics.isEmpty)
        #expect(lines[1] == "let byName = NSSortDescriptor(key: \"name\", ascending: true, selector: Selector(\"localizedStandardCompare:\"))")
        #expect(lines[2] == "let compare = Selector(\"caseInsensitiveCompare:\")")
        #expect(lines[3] == "let byTitle = NSSortDescriptor(key: \"title\", ascending: false, selector: compare)")
    }

    /// A constant at file level, also inside `#if`, is not a local: nothing is added after it
    /// (an expression there would not compile).
    @Test func aFileLevelSelectorConstantIsNotReadOnItsLine() {
        let source = "import CoreData\n#if os(Linux)\nlet sel = #selector(reload)\n#endif\nlet other = #selector(reload)\nfunc reload() {}\n"
        let (lines, diagnostics) = lines(source)
        #expect(diagnostics.isEmpty)
        #expect(lines[2] == "let sel = Selector(\"reload\")")
        #expect(lines[4] == "let other = Selector(\"reload\")")
    }

    /// A constant of another ported file, resolved by the functions of the file that declares it.
    @Test func aSelectorConstantOfAnotherFile() {
        let other = "enum Selectors {\n    static let reload = #selector(Stack.reload)\n}\nextension Stack { func reload() {} }\n"
        let index = PortIndex(indexing: Parser.parse(source: other), locals: false)
        let (lines, diagnostics) = lines("import CoreData\ncenter.addObserver(self, selector: Selectors.reload, name: .r, object: nil)\n", index: index)
        #expect(diagnostics.isEmpty)
        #expect(lines[1] == "center.addObserver(self, name: .r, object: nil) { observer, note in observer.reload() }")
    }

    /// Swift gives a throwing `@objc` method the Objective-C name `m:error:`, and the
    /// notification center (or `perform`) calls it without the error pointer: it runs,
    /// and a thrown error is written through a pointer nobody passed. The copy calls it
    /// with `try!`: the same method runs, and an error stops the program with the error
    /// at the caller's line.
    @Test func aThrowingMethodIsCalledWithTryBang() {
        let source = """
            import CoreData
            final class Importer {
                init(center: NotificationCenter) {
                    center.addObserver(self, selector: #selector(importChanges(_:)), name: .NSManagedObjectContextDidSave, object: nil)
                    perform(#selector(refresh))
                }
                func importChanges(_ note: Notification) throws {}
                func refresh() throws {}
            }
            """
        let (lines, diagnostics) = lines(source)
        #expect(diagnostics.isEmpty)
        #expect(lines[3] == "        center.addObserver(self, name: .NSManagedObjectContextDidSave, object: nil) { observer, note in try! observer.importChanges(note) }")
        #expect(lines[4] == "        try! refresh()")
    }

    /// The throwing method in another ported file (an extension of the observer's type).
    @Test func aThrowingMethodOfAnotherFile() {
        let other = "extension Importer {\n    @objc\n    func importChanges(_ note: Notification) throws {}\n    @objc func merge(_ note: Notification) {}\n}\n"
        #expect(PortIndex.mayDeclareThrowingMethods(other))
        #expect(!PortIndex.mayDeclareThrowingMethods("@objc(Note) class Note: NSManagedObject {}\nfunc save() throws {}\n"))
        let index = PortIndex(indexing: Parser.parse(source: other), locals: false)
        let source = """
            import CoreData
            center.addObserver(self, selector: #selector(importChanges(_:)), name: .a, object: nil)
            center.addObserver(self, selector: #selector(merge(_:)), name: .b, object: nil)
            """
        let (lines, diagnostics) = lines(source, index: index)
        #expect(diagnostics.isEmpty)
        #expect(lines[1] == "center.addObserver(self, name: .a, object: nil) { observer, note in try! observer.importChanges(note) }")
        #expect(lines[2] == "center.addObserver(self, name: .b, object: nil) { observer, note in observer.merge(note) }")
    }

    @Test func performOfANamedMethodIsADirectCall() {
        let source = """
            import CoreData
            final class Coordinator {
                func run(with value: Any?) {
                    perform(NSSelectorFromString("reload"))
                    self.perform(NSSelectorFromString("update:"), with: value)
                    worker?.perform(NSSelectorFromString("applyChanges:"), with: value)
                    perform(#selector(update(_:)), with: value)
                    _ = perform(#selector(reload))
                    let sel = #selector(update(_:))
                    perform(sel, with: value)
                    perform(
                        #selector(update(_:)),
                        with: value)
                    context.perform { self.reload() }
                    perform(NSSelectorFromString("mergeWithChanges:extra:"), with: value, with: nil)
                    _ = perform(#selector(count))
                }
                func reload() {}
                func update(_ value: Any?) {}
                @objc(applyChanges:) func merge(_ changes: Any?) {}
                func merge(changes: Any?, extra: Any?) {}
                func count() -> Int { 0 }
            }
            """
        let (lines, diagnostics) = lines(source)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        #expect(lines.count == 23)
        #expect(lines[3] == "        reload()")
        #expect(lines[4] == "        self.update(value)")
        #expect(lines[5] == "        worker?.merge(value)")
        #expect(lines[6] == "        update(value)")
        // `_ =` before a call of a method that returns nothing would draw a warning.
        #expect(lines[7] == "        reload()")
        #expect(lines[8] == "        let sel = Selector(\"update:\"); _ = sel")
        #expect(lines[9] == "        update(value)")
        #expect(lines[10...12] == ["        update(value", "", ")"])
        #expect(lines[13] == "        context.perform { self.reload() }")
        #expect(lines[14] == "        merge(changes: value, extra: nil)")
        #expect(lines[15] == "        _ = count()")
    }

    /// What the port cannot make a call of is refused at its line, saying what to write.
    @Test func aPerformThatCannotBeACallIsRefused() {
        let source = """
            import CoreData
            final class Coordinator {
                func run(name: String, value: Any?) {
                    perform(NSSelectorFromString(name))
                    perform(NSSelectorFromString("updateWithValue:"), with: value)
                    perform(#selector(update(_:)))
                    let result = perform(#selector(reload))
                    perform(#selector(reload), with: nil, afterDelay: 1)
                    let s = NSSelectorFromString("reload")
                }
                func reload() {}
                func update(_ value: Any?) {}
            }
            """
        let (_, diagnostics) = lines(source)
        #expect(diagnostics.map { "\($0.line):\($0.column)" } == ["4:9", "5:9", "6:9", "7:22", "8:9", "9:17"])
        let messages = diagnostics.map(\.message)
        #expect(messages[0].contains("not a string literal"))
        #expect(messages[1].contains("updateWithValue:") && messages[1].contains("no method"))
        #expect(messages[2].contains("update(_:)") && messages[2].contains("1"))
        #expect(messages[3].contains("result"))
        #expect(messages[4].contains("afterDelay"))
        #expect(messages[5].contains("NSSelectorFromString"))
    }
}
