@testable import CoreDataLint
import SwiftParser
import Testing

/// The dataflow analysis's transfer functions, one by one (docs/lint.md, "The analysis:
/// owners, queues, summaries"): each test reads a few small Swift files and asks the
/// solver what a property holds or a function returns.
/// Core Data's rules behind the expected owners: `viewContext` is the main-queue
/// context, `newBackgroundContext()` makes a new private-queue context each call, and
/// `performBackgroundTask`'s block gets a new private-queue context ("NSPersistentContainer",
/// developer.apple.com/documentation/coredata/nspersistentcontainer).
@Suite("Dataflow: transfer functions")
struct DataflowTests {
    static func solve(_ sources: [String], entities: Set<String> = ["Note", "User", "Goal"]) -> DataflowSolver {
        let facts = sources.enumerated().map { index, source in
            DataflowFacts(Parser.parse(source: source), lines: LineTable(source), fileName: "File\(index).swift")
        }
        return DataflowSolver(files: facts, isManagedObjectClass: { entities.contains($0) })
    }

    /// The queue of a context value; `unknown` for a value of mixed kinds (top).
    static func queue(_ value: AbstractValue?) -> ContextQueue? { value?.kind == .context || value?.kind == .mixed ? value?.owner.queue : nil }

    @Test("A local holds what it is set to; a function returns its local")
    func locals() {
        let solver = Self.solve(["final class Stack { let container = NSPersistentContainer(name: \"M\")\n func make() -> NSManagedObjectContext { let bg = container.newBackgroundContext(); bg.name = \"x\"; return bg } }"])
        #expect(Self.queue(solver.result(of: "make")) == .private)
        #expect(solver.result(of: "make")?.owner.makesNew == true)
    }

    @Test("A var assigned two contexts of different queues holds neither: unknown")
    func varJoin() {
        let solver = Self.solve([
            "final class Stack { let container = NSPersistentContainer(name: \"M\")\n func pick(_ flag: Bool) -> NSManagedObjectContext { var c = container.viewContext; if flag { c = container.newBackgroundContext() }; return c } }"
        ])
        #expect(solver.result(of: "pick")?.kind == .context)
        #expect(Self.queue(solver.result(of: "pick")) == .unknown)
    }

    /// Flow-insensitive: a local read before a later assignment changes it holds, at
    /// that read too, the join of all it is assigned (the body is read again for it;
    /// a body with no such read is read once).
    @Test("A var read before it is assigned again holds every value it is assigned, at the read and in what is stored from it")
    func readBeforeReassigned() {
        let solver = Self.solve([
            "final class Stack { let container = NSPersistentContainer(name: \"M\"); var kept: NSManagedObjectContext?\n func first() -> NSManagedObjectContext { var c = container.viewContext; let d = c; kept = d; c = container.newBackgroundContext(); return d } }"
        ])
        #expect(solver.result(of: "first")?.kind == .context)
        #expect(Self.queue(solver.result(of: "first")) == .unknown)
        #expect(Self.queue(solver.property("kept")) == .unknown)
        let once = Self.solve([
            "final class Stack { let container = NSPersistentContainer(name: \"M\"); var kept: NSManagedObjectContext?\n func first() -> NSManagedObjectContext { let c = container.viewContext; let d = c; kept = d; return d } }"
        ])
        #expect(Self.queue(once.result(of: "first")) == .main)
        #expect(Self.queue(once.property("kept")) == .main)
    }

    @Test("Stored, lazy and computed properties: a setup, a lazy closure's entity, a computed alias")
    func properties() {
        let solver = Self.solve([
            """
            final class Stack {
                let container = NSPersistentContainer(name: "M")
                lazy var main = container.viewContext
                let syncContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
                var context: NSManagedObjectContext { syncContext }
                var savingContext: NSManagedObjectContext { container.newBackgroundContext() }
                lazy var note: Note = { Note(context: savingContext) }()
            }
            """
        ])
        #expect(Self.queue(solver.property("main")) == .main)
        #expect(Self.queue(solver.property("syncContext")) == .private)
        #expect(Self.queue(solver.property("context")) == .private)
        #expect(solver.property("savingContext")?.owner.makesNew == true, "a computed getter that makes a context makes one at each read")
        #expect(solver.property("note")?.kind == .object)
        #expect(solver.property("note")?.owner.queue == .private)
    }

    @Test("An initializer's parameter stored into a property takes what each caller hands, through a local")
    func initializerArguments() {
        let solver = Self.solve([
            "final class Importer { let context: NSManagedObjectContext\n init(context: NSManagedObjectContext) { self.context = context } }",
            "final class Stack { let container = NSPersistentContainer(name: \"M\")\n func makeContext() -> NSManagedObjectContext { container.newBackgroundContext() }\n func start() { let bg = makeContext(); let importer = Importer(context: bg); importer.run() } }",
        ])
        #expect(Self.queue(solver.property("context")) == .private)
    }

    @Test("A stored parameter of a function nothing calls is unknown")
    func storedParameterWithoutCallers() {
        let solver = Self.solve(["final class Importer { var context: NSManagedObjectContext!\n func use(_ context: NSManagedObjectContext) { self.context = context } }"])
        #expect(Self.queue(solver.property("context")) == .unknown)
    }

    @Test("An optional set inside a closure and unwrapped with guard let")
    func optionalsAndGuard() {
        let solver = Self.solve([
            """
            final class Stack {
                let container = NSPersistentContainer(name: "M")
                let queue = DispatchQueue(label: "q")
                func make() -> NSManagedObjectContext? {
                    var result: NSManagedObjectContext?
                    queue.sync { result = container.newBackgroundContext() }
                    guard let context = result else { return nil }
                    return context
                }
            }
            """
        ])
        #expect(Self.queue(solver.result(of: "make")) == .private)
    }

    @Test("performBackgroundTask's parameter is a new private context; a property set from it holds one")
    func backgroundTaskParameter() {
        let solver = Self.solve([
            "class Operation { var operationContext: NSManagedObjectContext!\n func execute(_ container: NSPersistentContainer) { container.performBackgroundTask { [weak self] context in guard let strongSelf = self else { return }; strongSelf.operationContext = context } } }"
        ])
        let value = solver.property("operationContext")
        #expect(Self.queue(value) == .private)
        #expect(value?.owner.makesNew == false, "a stored property keeps the one context it was set to")
    }

    @Test("A capture list binds its own name, read where the closure is made")
    func captureList() {
        let solver = Self.solve([
            "final class Store { let backgroundContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)\n var context: NSManagedObjectContext { container.viewContext }\n let container = NSPersistentContainer(name: \"M\")\n func read() -> NSManagedObjectContext? { var found: NSManagedObjectContext?; backgroundContext.performAndWait { [context = backgroundContext] in found = context }; return found } }"
        ])
        #expect(Self.queue(solver.result(of: "read")) == .private)
    }

    @Test("performAndWait's block returns what the call returns; a fetch gives objects of its context")
    func performAndWaitResult() {
        let solver = Self.solve([
            "final class Store { let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)\n func notes() -> [Note] { let found: [Note] = context.performAndWait { (try? context.fetch(Note.fetchRequest())) ?? [] }; return found } }"
        ])
        let value = solver.result(of: "notes")
        #expect(value?.kind == .objects)
        #expect(value?.owner.queue == .private)
        #expect(value?.owner.identity == .property("context"))
    }

    @Test("Collections: for-in and first give an element, filter keeps the collection")
    func collections() {
        let solver = Self.solve([
            "final class Store { let container = NSPersistentContainer(name: \"M\")\n func first() -> Note? { let all = try? container.viewContext.fetch(Note.fetchRequest()); return all?.filter { $0.isDone }.first }\n func each() -> Note? { let all = try! container.viewContext.fetch(Note.fetchRequest()); for note in all { return note }; return nil } }"
        ])
        #expect(solver.result(of: "first")?.kind == .object)
        #expect(solver.result(of: "first")?.owner.queue == .main)
        #expect(solver.result(of: "each")?.kind == .object)
    }

    @Test("The API table's contexts: a library's call by name")
    func apiTable() {
        let solver = Self.solve(["final class Store { func save() -> NSManagedObjectContext { NSManagedObjectContext.mr_default() } }"])
        #expect(Self.queue(solver.result(of: "save")) == .main)
    }
}

@Suite("Dataflow: Swift 2 spellings")
struct DataflowSpellingTests {
    @Test("Swift 2's .PrivateQueueConcurrencyType and .MainQueueConcurrencyType are the same queues")
    func swift2ConcurrencyTypes() {
        let solver = DataflowTests.solve([
            "final class Stack { let root = NSManagedObjectContext(concurrencyType: .PrivateQueueConcurrencyType)\n let main = NSManagedObjectContext(concurrencyType: .MainQueueConcurrencyType) }"
        ])
        #expect(DataflowTests.queue(solver.property("root")) == .private)
        #expect(DataflowTests.queue(solver.property("main")) == .main)
    }
}
