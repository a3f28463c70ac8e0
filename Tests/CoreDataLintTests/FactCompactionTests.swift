@testable import CoreDataLint
import Testing

/// The first pass keeps a fact for every call and function of the project, so those
/// facts are kept small: a call's argument labels are a number in its file's table, and
/// bodies whose source cannot hold a fetch are not read token by token. What they tell
/// must not change.
@Suite("Small facts tell what they told")
struct FactCompactionTests {
    private static func facts(_ source: String, withText: Bool = true) -> FileFacts {
        let parsed = ParsedFile(path: "Sample.swift", text: source)
        return FileFacts(parsed.tree, lines: LineTable(source), fileName: "Sample.swift", text: withText ? source : nil)
    }

    @Test("Each call's labels come back from its file's table, each distinct list kept once, with its trailing closures")
    func labelsRoundTrip() {
        let facts = Self.facts(
            """
            func run(store: Store, items: [Int]) {
                store.load(from: 1, into: 2)
                store.load(from: 3, into: 4)
                store.reset()
                store.merge(items, policy: 1)
                store.update(key: "k") { _ in }
                store.reset()
            }
            """)
        let byCallee = Dictionary(grouping: facts.calls, by: \.callee)
        #expect(byCallee["load"]?.map { facts.callLabels($0) } == ["from:into:", "from:into:"])
        #expect(byCallee["reset"]?.map { facts.callLabels($0) } == ["", ""])
        #expect(byCallee["merge"]?.map { facts.callLabels($0) } == ["_:policy:"])
        #expect(byCallee["update"]?.map { facts.callLabels($0) } == ["key:"])
        #expect(byCallee["update"]?.first?.trailingClosures == 1)
        #expect(byCallee["load"]?.first?.trailingClosures == 0)
        #expect(facts.labelTable.count == Set(facts.labelTable).count)
        #expect(Set(facts.labelTable) == ["from:into:", "", "_:policy:", "key:"])
    }

    @Test("A call's labels and trailing closures fit an overload's signature as before they were numbered")
    func overloadsStillMatch() {
        let signature = ParameterLabels(joined: "_:context:", defaulted: 0b10)
        #expect(signature.accepts("_:", trailingClosures: 0))
        #expect(signature.accepts("_:context:", trailingClosures: 0))
        #expect(!signature.accepts("context:", trailingClosures: 0))
        #expect(signature.accepts(ParameterLabels.split("_:"), trailingClosures: 0, own: signature.labels))
        #expect(ParameterLabels.split("_:context:") == ["_", "context"])
        #expect(ParameterLabels.split("") == [])
    }

    @Test("Reading the source to skip bodies changes no fact: the functions returning a property's objects are the same")
    func sourceSkipChangesNothing() {
        let source = """
            final class Store {
                var context: NSManagedObjectContext!
                func notes() -> [Note] { (try? context.fetch(Note.fetchRequest())) ?? [] }
                func first(id: NSManagedObjectID) -> Note? { context.object(with: id) as? Note }
                func title() -> Heading { Heading(text: "none") }
                func cell() -> Cell { let c = Cell(); c.label = "objects"; return c }
            }
            """
        let read = Self.facts(source), whole = Self.facts(source, withText: false)
        #expect(read.propertyObjectReturns.map(\.function) == whole.propertyObjectReturns.map(\.function))
        #expect(read.propertyObjectReturns.map(\.function) == ["notes", "first"])
    }
}
