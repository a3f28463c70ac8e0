import SwiftSyntax

/// What the project tells about one context property or context-returning function.
struct ContextFact: Sendable, Hashable {
    var queue: ContextQueue
    /// Where the queue is told, for messages: "`savingContext` (CoreDataStack.swift:12)
    /// returns a private-queue context". Nil when the queue is unknown.
    var citation: String?
    /// The files the citation rests on.
    var files: Set<String>
    /// A function that makes a new context at each call.
    var makesNew = false
}

/// A parameter of a project function that every call site hands objects fetched from
/// one context (`let users = (try? container.viewContext.fetch(r)) ?? []; f(with: users)`).
struct ParameterObjects: Sendable, Hashable {
    var parameter: String
    /// The context's name: `viewContext`, or the property or function the caller fetched from.
    var context: String
    var fact: ContextFact
    /// A call site, for messages.
    var place: SourcePlace
}

/// A member of a type, "Type.name", as a key: both names hashed as they are, not
/// joined into a new string at every question (the rules ask one at nearly every
/// use of a property).
struct TypedName: Hashable, Sendable {
    var type: String
    var name: String
}

/// What a project function returns: objects of this context property, of known queue.
struct PropertyObjectContext: Sendable, Hashable {
    var returned: PropertyObjectReturn
    var fact: ContextFact
}

/// Where a function runs, learned from the project.
struct FunctionQueueFact: Sendable, Hashable {
    enum Queue: Sendable, Hashable {
        case main
        /// Off the main queue and every context's: an actor's executor or the global one.
        case concurrencyExecutor
        /// The queue of the context property with this name.
        case context(String)
        /// The queue of a private context no property names (`performBackgroundTask`'s,
        /// a local's made private by the caller): off the main queue. The text names it.
        case privateContext(String)
        /// The queue of the context property with this name of another instance than
        /// the function's own (`andWait`: inside `performAndWait`, on the caller's thread).
        case otherInstanceContext(String, andWait: Bool)
        /// A queue of the app's own, off the main queue and every context's:
        /// `DispatchQueue.global().async`, a queue made with `DispatchQueue(label:)`.
        case background
    }

    var queue: Queue
    /// Why, for messages: "a UIKit lifecycle method".
    var reason: String
    /// Only some call sites tell: the function runs on `queue` when called from them,
    /// and where else the project cannot tell. Enough for a private context used
    /// straight in its body: that use is wrong on those paths, whatever the others do.
    var onSomePaths = false
}

/// What the first pass learns from every scanned file, for the second pass to read in
/// any file: the `NSManagedObject` subclasses, the queue of each context property and
/// context-returning function (with assignments made in other files), where functions
/// run (from framework entry points and from every call site), the did-save observers
/// registered by selector, and the methods that return a fetch request.
struct ProjectIndex: Sendable {
    /// `NSManagedObject` and its subclasses declared in the scanned files.
    var managedObjectClasses: Set<String> = [CoreDataAPI.managedObjectType]
    /// Context properties by name. A name told different queues is `.unknown`.
    var contextProperties: [String: ContextFact] = [:]
    /// Context properties by "Type.name", for the types that declare them: what a use
    /// reads when the receiver's type is known (`self.context` in that type's code).
    var typedContextProperties: [TypedName: ContextFact] = [:]
    /// Functions returning a context, by name.
    var contextFunctions: [String: ContextFact] = [:]
    /// Methods named in `#selector(...)` of a did-save observer.
    var didSaveSelectors: Set<String> = []
    /// Methods with no parameters that build and return a fetch request, declared once.
    var requestFactories: [String: RequestFactory] = [:]
    /// Where functions declared once in the project run, when every call site agrees.
    var functionQueues: [String: FunctionQueueFact] = [:]
    /// Types whose code the frameworks run on the main queue.
    var entryPoints: EntryPoints
    /// Functions declared once that call a context method on their context parameter,
    /// by "name(label:)".
    var contextParameterUses: [String: ContextParameterUse] = [:]
    /// Functions declared once that return objects of the context they are given, by
    /// "name(label:)".
    var objectReturns: [String: ObjectReturn] = [:]
    /// Methods and computed properties of `NSManagedObjectContext` extensions that use a
    /// confined member of `self` straight, by name.
    var contextExtensionUses: [String: ContextExtensionUse] = [:]
    /// Functions declared once that return objects of a context property whose queue
    /// the project tells, by name, with that property's fact.
    var propertyObjectReturns: [String: PropertyObjectContext] = [:]
    /// Private-queue context properties that no code in the project performs on, hands
    /// on or keeps in a local, and that are not `public`: no caller can be inside their
    /// `perform`, so a straight use is outside it whoever the caller is.
    var neverPerformedContexts: Set<String> = []
    /// Parameters of functions declared once whose every call site hands objects of one
    /// context, by function name.
    var parameterObjects: [String: [ParameterObjects]] = [:]
    /// Closure parameters of functions declared once that the function runs on one
    /// known queue, by "name(label:)", and "name(trailing)" for a function's only one.
    var closureParameterQueues: [String: ClosureParameterQueue] = [:]
    /// Names declared more than once in the project with different argument labels, with
    /// each declaration's labels: `getDefaultPrinter()` and `getDefaultPrinter(context:)`
    /// are two functions, each known by its full name, and a call by its labels.
    var overloads: [String: [ParameterLabels]] = [:]
    /// Other people's APIs: where their callbacks run (the contexts they return are
    /// facts of the settings' file, `APITable.declarations`).
    var apiTable = APITable.builtIn

    /// `declaredElsewhere`: function names other files declare too, for an index of a
    /// few files that stands in for the project's (a name declared twice is no one
    /// function).
    init(files: [FileFacts], declaredElsewhere: Set<String> = [], apiTable: APITable = .builtIn) {
        self.apiTable = apiTable
        var superclasses: [String: String] = [:]
        var conformances: [String: [String]] = [:]
        var mainActorTypes: Set<String> = []
        var isolation = TypeIsolation()
        var factories: [String: [RequestFactory]] = [:]
        var declaredFunctions: [String: Int] = [:]
        for file in files {
            // By index: only the name is read, not a copy of every function's fact.
            for index in file.functions.indices {
                let name = file.functions[index].name
                declaredFunctions[name, default: declaredElsewhere.contains(name) ? 1 : 0] += 1
            }
            superclasses.merge(file.superclasses) { first, _ in first }
            conformances.merge(file.conformances) { $0 + $1 }
            mainActorTypes.formUnion(file.mainActorTypes)
            isolation.add(file)
            didSaveSelectors.formUnion(file.didSaveSelectors)
            for (name, factory) in file.requestFactories { factories[name, default: []].append(factory) }
        }
        // A name declared twice with other labels is two functions (another file's
        // declaration, in an index of a few files, is no one function); a label only one
        // of them has tells the call.
        var labelled: [String: Int] = [:]
        // Each signature once: a name many types declare alike (`viewDidLoad()` in every
        // view controller) is asked of every call by its labels, which must not cost one
        // question per declaration (3,497 a call on the bench's tree). A name has few
        // signatures: a look along them costs less than hashing one.
        for file in files {
            for index in file.functions.indices where declaredFunctions[file.functions[index].name, default: 0] > 1 {
                let function = file.functions[index]
                // Overloads this file declares itself are overloads in the project too,
                // declared elsewhere as well or not: a file's own index says so as the
                // project's does (each of them is then no one function here).
                if overloads[function.name]?.contains(function.signature) != true {
                    overloads[function.name, default: []].append(function.signature)
                }
                guard !declaredElsewhere.contains(function.name), !function.signature.joined.isEmpty else { continue }
                for label in Set(function.signature.labels) { labelled["\(function.name)(\(label):)", default: 0] += 1 }
            }
        }
        // Declared alike every time, the name has no overloads: its declarations are one
        // key, as a file's own index (which sees one of them) has it, so the first pass's
        // answers still hold and no file is parsed again for it.
        overloads = overloads.filter { $0.value.count > 1 }
        let isOneFunction = { (name: String, label: String) in declaredFunctions[name] == 1 || labelled["\(name)(\(label):)"] == 1 }
        for file in files {
            for use in file.contextParameterUses where isOneFunction(use.function, use.label) {
                contextParameterUses["\(use.function)(\(use.label):)"] = use
            }
            for parameter in file.closureParameterQueues where isOneFunction(parameter.function, parameter.label) {
                closureParameterQueues["\(parameter.function)(\(parameter.label):)"] = parameter
                if parameter.isOnlyClosureParameter, declaredFunctions[parameter.function] == 1 {
                    closureParameterQueues["\(parameter.function)(trailing)"] = parameter
                }
            }
            for use in file.contextExtensionUses where contextExtensionUses[use.member] == nil {
                contextExtensionUses[use.member] = use
            }
            for returned in file.objectReturns where isOneFunction(returned.function, returned.label) {
                objectReturns["\(returned.function)(\(returned.label):)"] = returned
            }
        }
        // A name declared twice may be two different methods: keep neither.
        requestFactories = factories.compactMapValues { $0.count == 1 ? $0[0] : nil }.filter { !declaredElsewhere.contains($0.key) }
        entryPoints = EntryPoints(superclasses: superclasses, conformances: conformances, mainActorTypes: mainActorTypes, isolation: isolation)
        managedObjectClasses.formUnion(entryPoints.subclasses(of: [CoreDataAPI.managedObjectType]))
        var contexts = ContextResolver(files: files)
        for name in contexts.propertyNames { contextProperties[name] = contexts.fact(name) }
        for (type, name) in contexts.typedPropertyKeys {
            if let fact = contexts.typedFact(type, name) { typedContextProperties[TypedName(type: type, name: name)] = fact }
        }
        for name in contexts.functionNames { contextFunctions[name] = contexts.fact(name) }
        // A protocol's context requirement, as its extensions read it (`self.syncContext`
        // in `extension SyncCoordinating`): the property of the project's types that
        // conform to it, when they agree; unknown when they do not.
        for (protocolType, name) in contexts.requirementKeys where typedContextProperties[TypedName(type: protocolType, name: name)] == nil {
            let conformers = conformances.filter { $0.value.contains(protocolType) }.map(\.key)
            let facts = conformers.map { typedContextProperties[TypedName(type: $0, name: name)] }
            guard let first = facts.first else { continue }
            let agreed = facts.allSatisfy { $0 != nil && $0?.queue != .unknown && $0?.queue == first?.queue }
            typedContextProperties[TypedName(type: protocolType, name: name)] = agreed ? first : ContextFact(queue: .unknown, files: [])
        }
        adoptExtensionUses(files)
        let classes = managedObjectClasses
        adopt(
            DataflowSolver(files: files.map(\.dataflow), isManagedObjectClass: { classes.contains($0) }), declaredFunctions: declaredFunctions,
            declaredElsewhere: declaredElsewhere)
        for file in files {
            for returned in file.propertyObjectReturns where declaredFunctions[returned.function] == 1 {
                guard let fact = contextProperties[returned.context] ?? contextFunctions[returned.context], fact.queue != .unknown, !fact.makesNew else { continue }
                propertyObjectReturns[returned.function] = PropertyObjectContext(returned: returned, fact: fact)
            }
        }
        var reads: [String: Bool] = [:]
        for file in files {
            for (name, safe) in file.contextNameReads { reads[name] = (reads[name] ?? true) && safe }
        }
        neverPerformedContexts = Set(reads.filter { $0.value && contextProperties[$0.key]?.queue == .private && contextProperties[$0.key]?.makesNew == false }.keys)
        let callGraph = CallGraph(
            files: files, entryPoints: entryPoints, contexts: contextProperties, contextFunctions: contextFunctions, declaredElsewhere: declaredElsewhere,
            overloads: overloads)
        functionQueues = callGraph.inferredQueues()
        parameterObjects = callGraph.parameterObjects()
    }

    /// The function a call calls, when it uses the context handed to it straight on
    /// the caller's queue, with that argument.
    func contextParameterUse(of call: FunctionCallExprSyntax) -> (ContextParameterUse, ExprSyntax)? {
        guard !contextParameterUses.isEmpty, let name = Expressions.lastName(call.calledExpression) else { return nil }
        for argument in call.arguments {
            if let use = contextParameterUses["\(name)(\(argument.label?.text ?? "_"):)"] { return (use, argument.expression) }
        }
        return nil
    }

    /// The fact of a context property of `type` (the type whose code is read), or by
    /// its name alone when that type does not declare it or is unknown.
    func contextProperty(_ name: String, in type: String?) -> ContextFact? {
        if let type, let fact = typedContextProperties[TypedName(type: type, name: name)] { return fact }
        return contextProperties[name]
    }

    /// The fact of a context property or function, by name.
    func context(named name: String) -> ContextFact? {
        contextProperties[name] ?? contextFunctions[name]
    }

    /// The key of a function's facts, from its full name (`getDefaultPrinter(context:)`):
    /// the base name when it is declared once, the full name for one of its overloads.
    func functionKey(_ fullName: String) -> String {
        // On the UTF-8 bytes: "(" is one byte, never part of another character, and
        // follows a name (no combining mark comes before a label or ")").
        guard let open = fullName.utf8.firstIndex(of: UInt8(ascii: "(")) else { return fullName }
        let base = String(fullName[..<open])
        return overloads[base] == nil ? base : fullName
    }
}

/// What the project tells of Swift concurrency: its actors, the types it declares, the
/// queues its URLSession delegates run on, and whether a manifest changes the default
/// isolation.
struct TypeIsolation: Sendable {
    var declaredTypes: Set<String> = []
    var actorTypes: Set<String> = []
    var customExecutorTypes: Set<String> = []
    var changesDefaultIsolation = false
    var sessionDelegateQueues: [String: [SessionDelegateQueue]] = [:]

    mutating func add(_ file: FileFacts) {
        declaredTypes.formUnion(file.declaredTypes)
        actorTypes.formUnion(file.actorTypes)
        customExecutorTypes.formUnion(file.customExecutorTypes)
        changesDefaultIsolation = changesDefaultIsolation || file.changesDefaultIsolation
        sessionDelegateQueues.merge(file.sessionDelegateQueues) { $0 + $1 }
    }
}

/// How Swift concurrency places a function that no framework or call site places.
enum ConcurrencyPlacement: Sendable, Hashable {
    /// An `actor`'s method: its executor, off the main queue and every context's.
    case actor(String)
    /// A nonisolated `async` function: Swift's global executor.
    case nonisolatedAsync
    /// A Swift Testing `@Test` function not marked `@MainActor`.
    case swiftTestingTest
    /// An `async` XCTest test method not marked `@MainActor`: XCTest runs it off the main thread.
    case asyncXCTest
}

/// The methods UIKit, AppKit, SwiftUI and XCTest call on the main queue.
struct EntryPoints: Sendable {
    private var superclasses: [String: String]
    private var conformances: [String: [String]]
    private var mainActorTypes: Set<String>
    private var isolation: TypeIsolation
    private var viewControllers: Set<String> = []
    private var testCases: Set<String> = []

    static let viewControllerBases: Set<String> = [
        "UIViewController", "UITableViewController", "UICollectionViewController", "UINavigationController",
        "UISplitViewController", "UIPageViewController", "UITabBarController", "NSViewController", "NSWindowController",
    ]
    static let lifecycleMethods: Set<String> = [
        "viewDidLoad", "viewWillAppear", "viewDidAppear", "viewWillDisappear", "viewDidDisappear", "viewWillLayoutSubviews",
        "viewDidLayoutSubviews", "loadView", "awakeFromNib", "viewWillTransition", "traitCollectionDidChange", "updateViewConstraints",
        "viewDidAppear", "windowDidLoad", "viewWillAppear",
    ]
    static let dataSourceMethods: Set<String> = ["tableView", "collectionView", "numberOfSections", "outlineView", "numberOfRows"]
    static let pickerMethods: Set<String> = ["imagePickerController", "imagePickerControllerDidCancel"]
    static let testMethods: Set<String> = ["setUp", "tearDown", "setUpWithError", "tearDownWithError"]

    init(superclasses: [String: String], conformances: [String: [String]], mainActorTypes: Set<String>, isolation: TypeIsolation = TypeIsolation()) {
        self.superclasses = superclasses
        self.conformances = conformances
        self.mainActorTypes = mainActorTypes
        self.isolation = isolation
        viewControllers = subclasses(of: Self.viewControllerBases)
        testCases = subclasses(of: ["XCTestCase"])
    }

    /// The declared types whose superclass chain reaches one of `roots`, with the roots.
    func subclasses(of roots: Set<String>) -> Set<String> {
        var found = roots
        var grew = true
        while grew {
            grew = false
            for (name, superclass) in superclasses where found.contains(superclass) && !found.contains(name) {
                found.insert(name)
                grew = true
            }
        }
        return found
    }

    func isViewController(_ type: String?) -> Bool { type.map(viewControllers.contains) ?? false }

    /// A SwiftUI view or scene: its `body` runs on the main queue.
    func isSwiftUIView(_ type: String?) -> Bool {
        guard let type else { return false }
        return conformances[type]?.contains { $0 == "View" || $0 == "Scene" || $0 == "App" } ?? false
    }

    func isMainActor(_ type: String?) -> Bool { type.map(mainActorTypes.contains) ?? false }

    /// Framework types and protocols known to add no actor isolation to a type that
    /// inherits or conforms to them.
    static let nonisolatedBases: Set<String> = [
        "NSObject", "Sendable", "Codable", "Encodable", "Decodable", "Hashable", "Equatable", "Comparable", "Identifiable",
        "Error", "LocalizedError", "CustomStringConvertible", "CustomDebugStringConvertible", "CaseIterable", "AnyObject",
        "ObservableObject", "NSManagedObject", "NSPersistentContainer", "NSPersistentCloudKitContainer", "Operation",
    ]

    /// Whether a function of `type` (nil: a global function), not marked `@MainActor`,
    /// is certainly nonisolated: the type is not an actor, not `@MainActor`, and every
    /// type it inherits from or conforms to is the project's own (and so, again) or a
    /// framework type known to add no isolation. A UIKit class, a SwiftUI view or an
    /// unknown framework type may make it `@MainActor`: then it is not.
    func isNonisolated(_ type: String?, depth: Int = 0) -> Bool {
        guard let type else { return true }
        guard depth < 8, isolation.declaredTypes.contains(type), !mainActorTypes.contains(type), !isolation.actorTypes.contains(type) else {
            return false
        }
        let inherited = (conformances[type] ?? []) + (superclasses[type].map { [$0] } ?? [])
        return inherited.allSatisfy { Self.nonisolatedBases.contains($0) || isNonisolated($0, depth: depth + 1) }
    }

    /// Where Swift concurrency runs a function no framework places on the main queue.
    func concurrencyPlacement(_ name: String, type: String?, isAsync: Bool, isNonisolated: Bool, isStatic: Bool, isTest: Bool)
        -> ConcurrencyPlacement?
    {
        if let type, isolation.actorTypes.contains(type), !isolation.customExecutorTypes.contains(type), !isNonisolated, !isStatic {
            return .actor(type)
        }
        // A manifest that makes code @MainActor by default, or runs nonisolated async
        // functions on their caller's actor: an unmarked function may be on the main queue.
        guard !isolation.changesDefaultIsolation else { return nil }
        if isTest { return .swiftTestingTest }
        if isAsync, let type, testCases.contains(type), name.hasPrefix("test") || Self.testMethods.contains(name) { return .asyncXCTest }
        if isAsync, isNonisolated || self.isNonisolated(type) { return .nonisolatedAsync }
        return nil
    }

    /// Where Swift concurrency runs a function the project declares, as `concurrencyPlacement(_:…)`.
    func concurrencyPlacement(of function: FunctionFact) -> ConcurrencyPlacement? {
        guard !function.isMainActor, reason(function) == nil else { return nil }
        return concurrencyPlacement(
            function.name, type: function.type, isAsync: function.isAsync, isNonisolated: function.isNonisolated, isStatic: function.isStatic,
            isTest: function.isTest)
    }

    /// An actor the project declares that names no executor of its own.
    func isActor(_ type: String?) -> Bool {
        guard let type else { return false }
        return isolation.actorTypes.contains(type) && !isolation.customExecutorTypes.contains(type)
    }

    /// A method of an actor the project declares (not static, and the actor names no executor of its own).
    func isActorMethod(_ function: FunctionFact) -> Bool {
        guard let type = function.type else { return false }
        return isolation.actorTypes.contains(type) && !function.isStatic
    }

    /// Where a URLSession delegate method of `type` runs, when the type makes its session
    /// with `delegate: self` and every such session agrees.
    func sessionDelegateQueue(_ type: String?) -> SessionDelegateQueue? {
        guard let type, let queues = isolation.sessionDelegateQueues[type], let first = queues.first, queues.allSatisfy({ $0 == first }),
            first != .unknown, conformances[type]?.contains(where: { $0.hasPrefix("URLSession") && $0.hasSuffix("Delegate") }) == true
        else { return nil }
        return first
    }

    /// A type that conforms to WatchConnectivity's `WCSessionDelegate`.
    func isWatchSessionDelegate(_ type: String?) -> Bool {
        guard let type else { return false }
        return conformances[type]?.contains("WCSessionDelegate") == true
    }

    /// A `WCSessionDelegate` method, which WatchConnectivity calls off the main queue:
    /// Apple's WCSession.h, above the protocol, "All delegate methods will be called on
    /// the same queue. The delegate queue is a non-main serial queue." Known by its
    /// first parameter, the `WCSession`, in a type that conforms (not `@MainActor`:
    /// that one is placed on the main queue, as the code says).
    func isWatchSessionDelegateMethod(_ function: FunctionFact) -> Bool {
        function.takesWatchSession && !function.isStatic && reason(function) == nil && isWatchSessionDelegate(function.type)
    }

    /// Why a function runs on the main queue, when a framework calls it there.
    func reason(_ function: FunctionFact) -> String? {
        if function.isIBAction { return "an @IBAction" }
        if function.isMainActor { return "@MainActor" }
        return reason(name: function.name, firstLabel: function.firstLabel, type: function.type, isAsync: function.isAsync)
    }

    func reason(name: String, firstLabel: String?, type: String?, isAsync: Bool = false) -> String? {
        if isViewController(type) {
            if Self.lifecycleMethods.contains(name) { return "a UIKit lifecycle method" }
            if name == "prepare" && firstLabel == "for" { return "prepare(for:sender:), called by UIKit" }
        }
        // Whether the type is a delegate, read only for a name a delegate may have: the
        // index is asked this of every function, and most names are no delegate's.
        let isDataSourceMethod = Self.dataSourceMethods.contains(name), isPickerMethod = Self.pickerMethods.contains(name)
        if isDataSourceMethod || isPickerMethod {
            let conforms = type.flatMap { conformances[$0] } ?? []
            let isDelegate = isViewController(type) || conforms.contains { $0.hasSuffix("DataSource") || $0.hasSuffix("Delegate") }
            if isDelegate, isDataSourceMethod { return "a table or collection view data source or delegate method" }
            if isDelegate, isPickerMethod { return "an image picker delegate method" }
        }
        if let type, testCases.contains(type), !isAsync, name.hasPrefix("test") || Self.testMethods.contains(name) {
            return "an XCTest test method, which XCTest runs on the main thread"
        }
        return nil
    }
}

/// Resolves the queue of every context property and function from the declarations,
/// the assignments made anywhere, and the initializer arguments stored into them.
private struct ContextResolver {
    private var declarations: [String: [ContextDeclaration]] = [:]
    private var assignments: [String: [ContextAssignment]] = [:]
    /// Init arguments by the property their parameter is stored into, with the type
    /// whose initializer stores it.
    private var storedArguments: [String: [(type: String, argument: InitArgument)]] = [:]
    private var resolved: [String: ContextFact] = [:]
    private var resolving: Set<String> = []
    private var otherContextNamedProperties: Set<String> = []

    init(files: [FileFacts]) {
        var stores: [String: [InitParameterStore]] = [:]
        for file in files {
            otherContextNamedProperties.formUnion(file.otherContextNamedProperties)
            for declaration in file.contextDeclarations { declarations[declaration.name, default: []].append(declaration) }
            for store in file.initStores { stores["\(store.type)(\(store.label):)", default: []].append(store) }
        }
        for file in files {
            for assignment in file.contextAssignments where declarations[assignment.property] != nil {
                assignments[assignment.property, default: []].append(assignment)
            }
            for argument in file.initArguments {
                for store in stores["\(argument.type)(\(argument.label):)"] ?? [] {
                    storedArguments[store.property, default: []].append((store.type, argument))
                }
            }
        }
    }

    var propertyNames: [String] { declarations.filter { $0.value.contains { $0.kind != .function } }.map(\.key) }
    var functionNames: [String] { declarations.filter { $0.value.contains { $0.kind == .function } }.map(\.key) }

    /// The queue of a name, and where it is told; `.unknown` when the sources disagree
    /// or do not tell.
    mutating func fact(_ name: String) -> ContextFact {
        if let done = resolved[name] { return done }
        guard declarations[name] != nil, resolving.insert(name).inserted else { return ContextFact(queue: .unknown, files: []) }
        defer { resolving.remove(name) }
        var candidates: [ContextFact] = []
        let implementations = (declarations[name] ?? []).filter { !$0.isRequirement }
        if implementations.count > 1 && implementations.contains(where: { $0.evidence == nil }) || otherContextNamedProperties.contains(name) {
            // Two types declare the name, and one is set from outside (or holds no
            // context at all): the assignments cannot be told apart, nor can which
            // type a use reaches.
            candidates.append(ContextFact(queue: .unknown, files: []))
        }
        for declaration in declarations[name] ?? [] {
            guard let evidence = declaration.evidence else { continue }
            let verb = declaration.kind == .storedProperty ? "holds" : "returns"
            candidates.append(told(evidence, subject: "`\(name)` (\(declaration.place.described)) \(verb)", file: declaration.place.file))
        }
        for assignment in assignments[name] ?? [] {
            candidates.append(told(assignment.evidence, subject: "`\(name)` is set to `\(assignment.valueText)` (\(assignment.place.described)), which is", file: assignment.place.file))
        }
        for (_, argument) in storedArguments[name] ?? [] {
            candidates.append(told(argument.evidence, subject: "`\(name)` is set from `\(argument.valueText)` (\(argument.place.described)), which is", file: argument.place.file))
        }
        var fact: ContextFact
        if let first = candidates.first, first.queue != .unknown, candidates.allSatisfy({ $0.queue == first.queue }) {
            fact = first
        } else {
            fact = ContextFact(queue: .unknown, files: [])
        }
        fact.makesNew = declarations[name]?.allSatisfy { $0.kind != .storedProperty && $0.makesNew } ?? false
        resolved[name] = fact
        return fact
    }

    /// The protocols that require each context property, and the property names.
    var requirementKeys: [(String, String)] {
        var keys: Set<[String]> = []
        for (name, list) in declarations {
            for declaration in list where declaration.isRequirement { if let type = declaration.type { keys.insert([type, name]) } }
        }
        return keys.map { ($0[0], $0[1]) }
    }

    /// The types that declare each context property (protocol requirements aside), and
    /// the property names: the keys of `typedFact`.
    var typedPropertyKeys: [(String, String)] {
        var keys: [(String, String)] = []
        for (name, list) in declarations {
            for type in Set(list.compactMap { $0.kind != .function && !$0.isRequirement ? $0.type : nil }) { keys.append((type, name)) }
        }
        return keys
    }

    /// The queue of `type`'s property `name`, from what is told of that type's property
    /// alone: its declaration, assignments to it through `self` or a value of that type,
    /// and its initializer's stored arguments. An assignment whose receiver's type is
    /// unknown may be to any type's property of that name: it must agree, and when
    /// several types declare the name it cannot tell the queue alone. Nil when the
    /// type does not declare the name.
    mutating func typedFact(_ type: String, _ name: String) -> ContextFact? {
        let all = declarations[name] ?? []
        let own = all.filter { $0.type == type && $0.kind != .function && !$0.isRequirement }
        guard !own.isEmpty else { return nil }
        let declaringTypes = Set(all.compactMap { $0.isRequirement ? nil : $0.type })
        var specific: [ContextFact] = [], ambiguous: [ContextFact] = []
        for declaration in own {
            guard let evidence = declaration.evidence else { continue }
            let verb = declaration.kind == .storedProperty ? "holds" : "returns"
            specific.append(told(evidence, subject: "`\(name)` (\(declaration.place.described)) \(verb)", file: declaration.place.file))
        }
        for assignment in assignments[name] ?? [] {
            if let receiver = assignment.receiverType, receiver != type, declaringTypes.contains(receiver) { continue }
            let fact = told(assignment.evidence, subject: "`\(name)` is set to `\(assignment.valueText)` (\(assignment.place.described)), which is", file: assignment.place.file)
            if assignment.receiverType == type { specific.append(fact) } else { ambiguous.append(fact) }
        }
        for (storeType, argument) in storedArguments[name] ?? [] where storeType == type {
            specific.append(told(argument.evidence, subject: "`\(name)` is set from `\(argument.valueText)` (\(argument.place.described)), which is", file: argument.place.file))
        }
        if specific.isEmpty && declaringTypes.count > 1 { return ContextFact(queue: .unknown, files: []) }
        let candidates = specific + ambiguous
        guard let first = candidates.first, first.queue != .unknown, candidates.allSatisfy({ $0.queue == first.queue }) else {
            return ContextFact(queue: .unknown, files: [])
        }
        return first
    }

    private mutating func told(_ evidence: QueueEvidence, subject: String, file: String) -> ContextFact {
        switch evidence {
        case .queue(let queue):
            return ContextFact(queue: queue, citation: "\(subject) \(queue.article) context", files: [file])
        case .name(let other):
            let inner = fact(other)
            guard inner.queue != .unknown, let citation = inner.citation else { return ContextFact(queue: .unknown, files: []) }
            return ContextFact(queue: inner.queue, citation: "\(subject) \(inner.queue.article) context; \(citation)", files: inner.files.union([file]))
        case .unknown:
            return ContextFact(queue: .unknown, files: [])
        }
    }
}

extension ContextQueue {
    /// "a private-queue".
    var article: String {
        switch self {
        case .main: "a main-queue"
        case .private: "a private-queue"
        case .unknown: "a"
        }
    }
}

/// Where each function runs, from its call sites: a function declared once whose every
/// call site runs on the main queue (or inside the same context's `perform`) runs there.
private struct CallGraph {
    private var functions: [String: [FunctionFact]] = [:]
    private var calls: [String: [CallFact]] = [:]
    private var escaping: Set<String> = []
    /// The keys of `functions` whose base name is in `escaping` (named in `#selector` or
    /// handed on as a value), found once: every round of the inference asks.
    private var escapingKeys: Set<String> = []
    private let entryPoints: EntryPoints
    private let contexts: [String: ContextFact]
    private let contextFunctions: [String: ContextFact]

    init(
        files: [FileFacts], entryPoints: EntryPoints, contexts: [String: ContextFact], contextFunctions: [String: ContextFact],
        declaredElsewhere: Set<String>, overloads: [String: [ParameterLabels]] = [:]
    ) {
        self.entryPoints = entryPoints
        self.contexts = contexts
        self.contextFunctions = contextFunctions
        // Room for every function at once in a file's own index (its functions bound its
        // keys), not grown key by key; not in the project's, where names declared alike
        // in many types would make the bound far above the keys.
        let declaredCount = files.reduce(0) { $0 + $1.functions.count }
        if declaredCount <= 512 { functions.reserveCapacity(declaredCount) }
        // An overloaded name's functions are known by their full names.
        for file in files {
            for function in file.functions {
                let isOverloaded = !overloads.isEmpty && overloads[function.name] != nil
                functions[isOverloaded ? function.signature.fullName(function.name) : function.name, default: []].append(function)
            }
            escaping.formUnion(file.escapingNames)
        }
        // Another file's function of the same name: no one function, as in the project.
        for name in declaredElsewhere {
            for key in overloads[name].map({ $0.map { $0.fullName(name) } }) ?? [name] {
                guard let first = functions[key]?.first else { continue }
                functions[key]?.append(
                    FunctionFact(name: name, firstLabel: nil, type: nil, isIBAction: false, isMainActor: false, isCalledFromOutside: true, place: first.place))
            }
        }
        for key in functions.keys where escaping.contains(Self.base(key)) { escapingKeys.insert(key) }
        // Each overload's labels split once, not at every call of its name.
        let overloaded = overloads.mapValues { signatures in signatures.map { (signature: $0, labels: $0.labels, key: $0.fullName("")) } }
        for file in files {
            // Whether each of the file's functions is overloaded, asked once per function,
            // not once per call it makes.
            let callerIsOverloaded = overloaded.isEmpty ? [] : file.functions.map { overloaded[$0.name] != nil }
            // Each of the file's argument label lists split once, by its number, not at
            // every call of an overloaded name that has it.
            var splitLabels: [[String]?] = []
            for index in file.calls.indices {
                // A call of no function the project declares is dropped before it is
                // copied (most calls: `fetch`, `append`, UIKit's).
                let declared = functions[file.calls[index].callee]
                guard declared != nil || (!overloaded.isEmpty && overloaded[file.calls[index].callee] != nil) else { continue }
                var call = file.calls[index]
                if !overloaded.isEmpty, let caller = call.caller {
                    let isOverloaded = call.callerFunction >= 0 ? callerIsOverloaded[Int(call.callerFunction)] : overloaded[caller] != nil
                    if isOverloaded {
                        call.caller = call.callerFunction >= 0 ? file.functions[Int(call.callerFunction)].signature.fullName(caller) : nil
                    }
                }
                // A call of an overloaded name reaches the overloads its labels fit; one
                // they fit none of, any of them. An overloaded name is no key of
                // `functions` (its declarations are known by their full names): a name
                // that is one is asked no more.
                if let declared {
                    add(call, as: call.callee, declared)
                    continue
                }
                guard !overloaded.isEmpty, let signatures = overloaded[call.callee] else { continue }
                let labels: [String]
                let number = Int(call.labels)
                if file.labelTable.indices.contains(number) {
                    if splitLabels.isEmpty { splitLabels = Array(repeating: nil, count: file.labelTable.count) }
                    if let known = splitLabels[number] {
                        labels = known
                    } else {
                        labels = ParameterLabels.split(file.labelTable[number])
                        splitLabels[number] = labels
                    }
                } else {
                    labels = ParameterLabels.split(file.callLabels(call))
                }
                let fitting = signatures.filter { $0.signature.accepts(labels, trailingClosures: call.trailingClosures, own: $0.labels) }
                for key in Set((fitting.isEmpty ? signatures : fitting).map { call.callee + $0.key }) { add(call, as: key) }
            }
        }
    }

    /// Keeps `call` as a call of the function known by `key`, when the project declares it.
    private mutating func add(_ call: CallFact, as key: String, _ known: [FunctionFact]? = nil) {
        guard let declared = known ?? functions[key] else { return }
        // `Type.method()` calls the project's method only when that type declares it.
        if let receiver = call.receiverType {
            let type = receiver == "Self" ? call.callerType : receiver
            guard declared.contains(where: { $0.type == type && $0.isStatic }) else { return }
        }
        calls[key, default: []].append(call)
    }

    /// A function's key without its labels: what `#selector` and function values name.
    private static func base(_ key: String) -> String {
        // On the UTF-8 bytes: "(" is one byte, never part of another character.
        guard let open = key.utf8.firstIndex(of: UInt8(ascii: "(")) else { return key }
        return String(key[..<open])
    }

    /// "`reload()`", "`getDefaultPrinter(context:)`": a caller, for messages.
    private static func called(_ key: String) -> String {
        key.contains("(") ? "`\(key)`" : "`\(key)()`"
    }

    func inferredQueues() -> [String: FunctionQueueFact] {
        var inferred: [String: FunctionQueueFact] = [:]
        var grew = true
        while grew {
            grew = false
            for (name, declared) in functions where inferred[name] == nil && declared.count == 1 {
                let function = declared[0]
                if let reason = entryPoints.reason(function) {
                    inferred[name] = FunctionQueueFact(queue: .main, reason: reason)
                    grew = true
                } else if !function.isCalledFromOutside, !runsApart(function), !escapingKeys.contains(name), let fact = fromCallSites(name, inferred) {
                    inferred[name] = fact
                    grew = true
                }
            }
        }
        addMainPaths(&inferred)
        return inferred
    }

    /// Parameters whose every call site hands objects fetched from one context of known
    /// queue, for functions declared once that nothing else may call. A call site may
    /// also hand on an object parameter of its own caller that this finds (`start(for:)`
    /// hands its `conversation` to `fire(for:)`): repeated until nothing more is found.
    func parameterObjects() -> [String: [ParameterObjects]] {
        var result: [String: [ParameterObjects]] = [:]
        var grew = true
        while grew {
            grew = false
            for (name, declared) in functions where declared.count == 1 && !declared[0].objectParameters.isEmpty {
                let function = declared[0]
                guard !function.isCalledFromOutside, !escapingKeys.contains(name), let sites = calls[name], !sites.isEmpty else { continue }
                for (label, parameter) in function.objectParameters where result[name]?.contains(where: { $0.parameter == parameter }) != true {
                    var agreed: (String, ContextFact)?
                    for site in sites {
                        guard let known = objects(handedAs: label, at: site, result), agreed == nil || (agreed?.0 == known.0 && agreed?.1.queue == known.1.queue)
                        else { agreed = nil; break }
                        agreed = agreed ?? known
                    }
                    guard let (context, fact) = agreed else { continue }
                    result[name, default: []].append(ParameterObjects(parameter: parameter, context: context, fact: fact, place: sites[0].place))
                    grew = true
                }
            }
        }
        return result
    }

    /// The context of the objects a call site hands as `label`: fetched by the caller, or
    /// an object parameter of the caller (declared once) that every call of it fills.
    private func objects(handedAs label: String, at site: CallFact, _ found: [String: [ParameterObjects]]) -> (String, ContextFact)? {
        if let evidence = site.objectArguments[label] { return resolve(evidence) }
        guard let parameter = site.parameterArguments[label], let caller = site.caller, functions[caller]?.count == 1,
            let objects = found[caller]?.first(where: { $0.parameter == parameter })
        else { return nil }
        return (objects.context, objects.fact)
    }

    /// The context a fetch's receiver names: `viewContext`, or a property or function of
    /// known queue that does not make a new context at each use.
    private func resolve(_ evidence: QueueEvidence) -> (String, ContextFact)? {
        switch evidence {
        case .queue(.main): return ("viewContext", ContextFact(queue: .main, files: []))
        case .name(let name):
            guard let fact = contexts[name] ?? contextFunctions[name], fact.queue != .unknown, !fact.makesNew else { return nil }
            return (name, fact)
        case .queue, .unknown: return nil
        }
    }

    /// An `async` function not marked `@MainActor`, or an actor's method: Swift
    /// concurrency runs it on an executor of its own, not on its callers' queue.
    private func runsApart(_ function: FunctionFact) -> Bool {
        guard !function.isMainActor else { return false }
        return function.isAsync || entryPoints.isActorMethod(function)
    }

    /// Functions not placed by every call site that some call site certainly runs on
    /// the main queue: `DispatchQueue.main.async { self.refresh() }`, or a direct call
    /// from a function that runs on the main queue (on every or some paths).
    private func addMainPaths(_ inferred: inout [String: FunctionQueueFact]) {
        var grew = true
        while grew {
            grew = false
            for (name, declared) in functions where inferred[name] == nil && declared.count == 1 && !escapingKeys.contains(name) && !runsApart(declared[0]) {
                for site in calls[name] ?? [] {
                    guard let reason = mainPathReason(site, inferred) else { continue }
                    inferred[name] = FunctionQueueFact(queue: .main, reason: reason, onSomePaths: true)
                    grew = true
                    break
                }
            }
        }
    }

    private func mainPathReason(_ site: CallFact, _ inferred: [String: FunctionQueueFact]) -> String? {
        // Made only for an answer: most sites give none.
        var place: String { site.place.described }
        switch site.placement {
        case .main:
            return "when called on the main queue, as at \(place)"
        case .direct:
            guard let caller = site.caller else { return nil }
            if let function = functions[caller]?.first(where: { $0.type == site.callerType }), entryPoints.reason(function) != nil {
                return "when called from \(Self.called(caller)), which runs on the main queue, at \(place)"
            }
            guard functions[caller]?.count == 1, let known = inferred[caller], known.queue == .main else { return nil }
            return "when called from \(Self.called(caller)) at \(place), which runs on the main queue \(known.reason)"
        default:
            return nil
        }
    }

    /// The queue every call site agrees on, when it does.
    private func fromCallSites(_ name: String, _ inferred: [String: FunctionQueueFact]) -> FunctionQueueFact? {
        guard let sites = calls[name], !sites.isEmpty else { return nil }
        var agreed: FunctionQueueFact?
        for site in sites {
            guard let queue = queue(of: site, inferred), agreed == nil || agreed?.queue == queue.queue else { return nil }
            agreed = agreed ?? queue
        }
        return agreed
    }

    private func queue(of site: CallFact, _ inferred: [String: FunctionQueueFact]) -> FunctionQueueFact? {
        // Made only for an answer: most sites give none.
        var place: String { site.place.described }
        switch site.placement {
        case .main:
            return FunctionQueueFact(queue: .main, reason: "called only on the main queue, as at \(place)")
        case .perform(let context):
            guard let fact = contexts[context], fact.queue != .unknown else { return nil }
            return FunctionQueueFact(queue: .context(context), reason: "called only inside \(context).perform { }, as at \(place)")
        case .performOnOtherInstance(let context, let andWait):
            guard let fact = contexts[context], fact.queue == .private else { return nil }
            return FunctionQueueFact(
                queue: .otherInstanceContext(context, andWait: andWait),
                reason: "called on a new instance, only inside the caller's own \(context).\(andWait ? "performAndWait" : "perform") { }, as at \(place)")
        case .privateQueue(let name, let block):
            return FunctionQueueFact(queue: .privateContext(name), reason: "called only inside \(block), as at \(place)")
        case .performOnLocal(let local, let made):
            guard let fact = contexts[made] ?? contextFunctions[made], fact.queue == .private else { return nil }
            let name = "the queue of the private-queue context '\(local)'"
            return FunctionQueueFact(queue: .privateContext(name), reason: "called only inside \(local).perform { }, a private-queue context (`\(made)`), as at \(place)")
        case .background:
            return FunctionQueueFact(queue: .background, reason: "called only on a background queue, as at \(place)")
        case .direct:
            guard let caller = site.caller else { return nil }
            let callerQueue: FunctionQueueFact.Queue?
            var framework: String?
            if let function = functions[caller]?.first(where: { $0.type == site.callerType }), entryPoints.reason(function) != nil {
                callerQueue = .main
            } else if let function = functions[caller]?.first(where: { $0.type == site.callerType }), entryPoints.isWatchSessionDelegateMethod(function) {
                callerQueue = .background
                framework = "on WatchConnectivity's delegate queue (a WCSessionDelegate method), off the main queue and every context's"
            } else if functions[caller]?.count == 1, let function = functions[caller]?.first, entryPoints.concurrencyPlacement(of: function) != nil {
                callerQueue = .concurrencyExecutor
            } else if let known = inferred[caller], functions[caller]?.count == 1, !known.onSomePaths {
                callerQueue = known.queue
            } else {
                callerQueue = nil
            }
            guard let callerQueue else { return nil }
            let on =
                switch callerQueue {
                case .context(let context): "on \(context)'s queue"
                case .main: "on the main queue"
                case .concurrencyExecutor: "on a Swift concurrency executor (an actor's method, a nonisolated async function, a test off the main thread)"
                case .privateContext(let name): "on \(name)"
                case .otherInstanceContext(let name, _): "on another instance's \(name) queue"
                case .background: "on a background queue"
                }
            return FunctionQueueFact(queue: callerQueue, reason: "called only from code \(framework ?? on), as from \(Self.called(caller)) at \(place)")
        case .unknown:
            return nil
        }
    }
}
