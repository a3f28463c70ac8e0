@testable import CoreDataLint
import SwiftParser
import Testing

/// Function summaries: what a function returns as a value of its arguments, read at
/// each call with the caller's arguments; computed to a fixpoint over the call graph;
/// a name several declarations bear is their join, unknown when they disagree.
@Suite("Dataflow: summaries")
struct DataflowSummaryTests {
    private static func solve(_ sources: [String]) -> DataflowSolver { DataflowTests.solve(sources) }

    @Test("Objects of the context a helper is handed: the summary names the parameter, the call the argument's context")
    func objectsOfParameter() {
        let solver = Self.solve([
            "enum Queries { static func user(context: NSManagedObjectContext) -> User? { try? context.fetch(User.fetchRequest()).first } }",
            "final class Screen { let container = NSPersistentContainer(name: \"M\")\n func show() -> User? { Queries.user(context: container.viewContext) } }",
        ])
        #expect(solver.result(of: "user")?.owner.identity == .parameter("context"))
        #expect(solver.result(of: "user")?.kind == .object)
        #expect(solver.result(of: "show")?.owner.queue == .main)
    }

    @Test("Two calls deep, through a relationship: staleGoals(in:) → user(context:) → .goals")
    func twoCallsDeep() {
        let solver = Self.solve([
            "final class User: NSManagedObject { @NSManaged var goals: Set<Goal> }\nfinal class Goal: NSManagedObject {}",
            "enum Queries { static func user(context: NSManagedObjectContext) -> User? { try? context.fetch(User.fetchRequest()).first }\n static func staleGoals(in context: NSManagedObjectContext) -> Set<Goal> { let user = user(context: context); return user?.goals ?? [] } }",
        ])
        let value = solver.result(of: "staleGoals")
        #expect(value?.kind == .objects)
        #expect(value?.owner.identity == .parameter("in"))
    }

    @Test("A context extension's method is called on its receiver: `self` is the receiver's context")
    func contextExtension() {
        let solver = Self.solve([
            "extension NSManagedObjectContext { func safeFetch(_ request: NSFetchRequest<Note>) -> [Note] { (try? fetch(request)) ?? [] } }",
            "final class Screen { let container = NSPersistentContainer(name: \"M\")\n func load() -> [Note] { container.viewContext.safeFetch(Note.fetchRequest()) } }",
        ])
        #expect(solver.result(of: "safeFetch")?.owner.identity == .parameter("self"))
        #expect(solver.result(of: "load")?.owner.queue == .main)
        #expect(solver.result(of: "load")?.kind == .objects)
    }

    @Test("A wrapper that runs its block in performAndWait returns what the block returns")
    func closureResult() {
        let solver = Self.solve([
            """
            final class Persistence {
                let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
                func performAndWait<T>(_ block: () throws -> T) rethrows -> T { try context.performAndWait(block) }
                func next() -> [Note] { performAndWait { (try? context.fetch(Note.fetchRequest())) ?? [] } }
            }
            """
        ])
        #expect(solver.result(of: "performAndWait")?.owner.identity == .parameter("_"))
        #expect(solver.result(of: "next")?.owner.queue == .private)
        #expect(solver.result(of: "next")?.kind == .objects)
    }

    @Test("Mutual recursion settles at a fixpoint")
    func recursion() {
        let solver = Self.solve([
            "final class Stack { let container = NSPersistentContainer(name: \"M\")\n func a(_ n: Int) -> NSManagedObjectContext { b(n - 1) }\n func b(_ n: Int) -> NSManagedObjectContext { n > 0 ? a(n) : container.viewContext } }"
        ])
        #expect(DataflowTests.queue(solver.result(of: "a")) == .main)
        #expect(DataflowTests.queue(solver.result(of: "b")) == .main)
        #expect(solver.rounds >= 2 && solver.rounds < DataflowSolver.maximumRounds)
    }

    @Test("A name two types declare is the join of both: unknown when they disagree, never one of them")
    func ambiguousDeclarations() {
        let solver = Self.solve([
            "final class A { let container = NSPersistentContainer(name: \"M\")\n func makeContext() -> NSManagedObjectContext { container.viewContext } }",
            "final class B { let container = NSPersistentContainer(name: \"M\")\n func makeContext() -> NSManagedObjectContext { container.newBackgroundContext() } }",
            "final class C { let c = A().makeContext() }",
        ])
        #expect(DataflowTests.queue(solver.result(of: "makeContext")) == .unknown)
        #expect(DataflowTests.queue(solver.property("c")) == .unknown)
    }

    @Test("Two declarations of a property, one set from outside: unknown")
    func propertySetFromOutside() {
        let solver = Self.solve([
            "final class A { let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType) }",
            "final class B { var context: NSManagedObjectContext! }",
        ])
        #expect(DataflowTests.queue(solver.property("context")) == .unknown)
    }

    @Test("A name other targets declare (TargetViews) is unknown here, even where they agree")
    func ambiguousAcrossTargets() {
        var facts = DataflowFacts()
        facts.ambiguousNames = ["context"]
        let source = "final class A { let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType) }"
        let own = DataflowFacts(Parser.parse(source: source), lines: LineTable(source), fileName: "A.swift")
        let solver = DataflowSolver(files: [own, facts], isManagedObjectClass: { _ in false })
        #expect(DataflowTests.queue(solver.property("context")) == .unknown)
        #expect(DataflowTests.queue(DataflowSolver(files: [own], isManagedObjectClass: { _ in false }).property("context")) == .private)
    }

    @Test("Hiding another target's names: its declarations go, and what named them is unknown")
    func hiding() {
        let source = "final class A { let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)\n var alias: NSManagedObjectContext { context } }"
        let facts = DataflowFacts(Parser.parse(source: source), lines: LineTable(source), fileName: "A.swift").hiding(["context"])
        let solver = DataflowSolver(files: [facts], isManagedObjectClass: { _ in false })
        #expect(solver.property("context") == nil)
        #expect(DataflowTests.queue(solver.property("alias")) == .unknown)
    }

    @Test("A helper that makes a context with the concurrency type it is handed: each call makes one of the argument's queue")
    func contextOfConcurrencyTypeArgument() {
        // `init(concurrencyType:)` makes a context that confines its objects to the queue
        // its concurrency type names (NSManagedObjectContext, "Concurrency").
        let solver = Self.solve([
            """
            final class Factory {
                private func createContext(_ concurrencyType: NSManagedObjectContextConcurrencyType, name: String) -> NSManagedObjectContext {
                    let context = NSManagedObjectContext(concurrencyType: concurrencyType)
                    context.name = name
                    return context
                }
                func makeStack() -> Stack {
                    let background = createContext(.privateQueueConcurrencyType, name: "background")
                    let main = createContext(NSManagedObjectContextConcurrencyType.mainQueueConcurrencyType, name: "main")
                    return Stack(main: main, background: background)
                }
            }
            """,
            "final class Stack { let mainContext: NSManagedObjectContext; let backgroundContext: NSManagedObjectContext\n init(main: NSManagedObjectContext, background: NSManagedObjectContext) { self.mainContext = main; self.backgroundContext = background } }",
        ])
        #expect(DataflowTests.queue(solver.result(of: "createContext")) == .unknown, "the summary leaves the queue to the caller")
        #expect(DataflowTests.queue(solver.property("mainContext")) == .main)
        #expect(DataflowTests.queue(solver.property("backgroundContext")) == .private)
        #expect(solver.property("backgroundContext")?.owner.identity == .property("backgroundContext"), "kept by the property: one context")
    }

    @Test("Swift 2's calls leave out the first argument label: createContext(.PrivateQueueConcurrencyType, name:) reaches createContext(concurrencyType:name:)")
    func swift2FirstArgumentLabel() {
        // Swift 2 omitted a method's first argument label by default; SE-0046 (Swift 3)
        // made the first parameter labelled like the others.
        let solver = Self.solve([
            """
            final class Factory {
                private func createContext(concurrencyType: NSManagedObjectContextConcurrencyType, name: String) -> NSManagedObjectContext {
                    let context = NSManagedObjectContext(concurrencyType: concurrencyType)
                    return context
                }
                let background: NSManagedObjectContext
                init() { background = self.createContext(.PrivateQueueConcurrencyType, name: "background") }
            }
            """,
            "final class Other { func createContext(_ type: Int) -> NSManagedObjectContext? { nil }\n let made = createContext(3) }",
        ])
        #expect(DataflowTests.queue(solver.property("background")) == .private)
        #expect(DataflowTests.queue(solver.property("made")) != .private, "a call Swift 3 reads reaches its own declaration only")
    }

    @Test("Owners and queue points join to unknown when they differ, and a queue point tells which contexts it runs on")
    func lattice() {
        let main = Owner(queue: .main, identity: .property("viewContext"))
        let made = Owner.made("A.swift:3", queue: .private)
        #expect(main.joined(with: main) == main)
        #expect(main.joined(with: made).queue == .unknown)
        #expect(made.joined(with: .made("A.swift:9", queue: .private)).queue == .private, "two private contexts: a private one, which one unknown")
        #expect(QueuePoint.main.runs(on: main) == true)
        #expect(QueuePoint.main.runs(on: made) == false)
        #expect(QueuePoint.context(made).runs(on: made) == true)
        #expect(QueuePoint.context(.made("A.swift:9", queue: .private)).runs(on: made) == false)
        #expect(QueuePoint.other("DispatchQueue.global()").runs(on: main) == false)
        #expect(QueuePoint.unknown.runs(on: main) == nil)
        #expect(QueuePoint.main.joined(with: .other("q")) == .unknown)
    }
}


/// What a function does to its receiver, through the index: the rules ask it.
@Suite("Dataflow: what functions do to their parameters")
struct DataflowEffectTests {
    @Test("A context extension's method that sets another extension member backed by userInfo uses its receiver: a fresh private context outside perform is reported")
    func transitiveExtensionUse() {
        let sources = [
            LintSource(path: "Ext.swift", text: """
                import CoreData
                extension NSManagedObjectContext {
                    var encryptionKeys: String? {
                        get { userInfo["keys"] as? String }
                        set { userInfo["keys"] = newValue }
                    }
                    func disableEncryption(keys: String) {
                        self.encryptionKeys = keys
                    }
                    func disableLater(keys: String) {
                        perform { self.encryptionKeys = keys }
                    }
                }
                """),
            LintSource(path: "Backup.swift", text: """
                import CoreData
                enum Backup {
                    static func markImported(coordinator: NSPersistentStoreCoordinator) {
                        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
                        context.persistentStoreCoordinator = coordinator
                        context.disableEncryption(keys: "k")
                        context.disableLater(keys: "k")
                    }
                }
                """),
        ]
        let findings = Linter().lint(sources: sources).findings
        #expect(findings.map { "\($0.path):\($0.line) \($0.ruleID)" } == ["Backup.swift:6 context-without-perform"])
    }

    @Test("Did-save observers of a stack whose contexts a factory's helper makes from a concurrency type (JSQCoreDataKit's shape, in Swift 2's call style): the merge outside perform is reported")
    func mergeIntoHelperMadeContexts() {
        // A did-save observer registered by selector runs on the thread that posted the
        // notification, the saving context's ("NSManagedObjectContextDidSave",
        // developer.apple.com/documentation/foundation/nsnotification/name/1506380-nsmanagedobjectcontextdidsave).
        let sources = [
            LintSource(path: "Factory.swift", text: """
                import CoreData
                final class StackFactory {
                    func createStack(completion: @escaping (Stack) -> Void) {
                        let creationClosure = {
                            let backgroundContext = self.createContext(.PrivateQueueConcurrencyType, name: "background")
                            let mainContext = self.createContext(.MainQueueConcurrencyType, name: "main")
                            completion(Stack(mainContext: mainContext, backgroundContext: backgroundContext))
                        }
                        creationClosure()
                    }
                    private func createContext(concurrencyType: NSManagedObjectContextConcurrencyType, name: String) -> NSManagedObjectContext {
                        let context = NSManagedObjectContext(concurrencyType: concurrencyType)
                        context.name = "stack." + name
                        return context
                    }
                }
                """),
            LintSource(path: "Stack.swift", text: """
                import CoreData
                final class Stack {
                    let mainContext: NSManagedObjectContext, backgroundContext: NSManagedObjectContext
                    init(mainContext: NSManagedObjectContext, backgroundContext: NSManagedObjectContext) {
                        self.mainContext = mainContext; self.backgroundContext = backgroundContext
                        NotificationCenter.default.addObserver(self, selector: #selector(backgroundDidSave(_:)), name: .NSManagedObjectContextDidSave, object: backgroundContext)
                        NotificationCenter.default.addObserver(self, selector: #selector(mainDidSave(_:)), name: .NSManagedObjectContextDidSave, object: mainContext)
                    }
                    @objc private func backgroundDidSave(_ note: Notification) {
                        mainContext.mergeChanges(fromContextDidSave: note)
                    }
                    @objc private func mainDidSave(_ note: Notification) {
                        backgroundContext.perform { self.backgroundContext.mergeChanges(fromContextDidSave: note) }
                    }
                }
                """),
        ]
        let findings = Linter().lint(sources: sources).findings
        #expect(findings.map { "\($0.path):\($0.line) \($0.ruleID)" } == ["Stack.swift:10 merge-off-queue"])
    }
}
