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
    /// The properties that managed object classes declare, in the class or any extension
    /// of it in the project (`extension ZMConversation { var qualifiedID: … }`): a bare
    /// name of one in a method of the class reads `self`.
    var managedObjectMembers: Set<TypedName> = []
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
        let declared = Declarations(files, declaredElsewhere: declaredElsewhere)
        didSaveSelectors = declared.didSaveSelectors
        // A name declared twice may be two different methods: keep neither.
        requestFactories = declared.factories.compactMapValues { $0.count == 1 ? $0[0] : nil }.filter { !declaredElsewhere.contains($0.key) }
        entryPoints = EntryPoints(
            superclasses: declared.superclasses, conformances: declared.conformances, mainActorTypes: declared.mainActorTypes, isolation: declared.isolation)
        managedObjectClasses.formUnion(entryPoints.subclasses(of: declared.entityClasses.union([CoreDataAPI.managedObjectType])))
        indexFunctionFacts(files, declaredFunctions: declared.functions, declaredElsewhere: declaredElsewhere)
        indexContexts(files, conformances: declared.conformances)
        adoptExtensionUses(files)
        let classes = managedObjectClasses
        adopt(
            DataflowSolver(files: files.map(\.dataflow), isManagedObjectClass: { classes.contains($0) }), declaredFunctions: declared.functions,
            declaredElsewhere: declaredElsewhere)
        for file in files {
            for returned in file.propertyObjectReturns where declared.functions[returned.function] == 1 {
                guard let fact = contextProperties[returned.context] ?? contextFunctions[returned.context], fact.queue != .unknown, !fact.makesNew else { continue }
                propertyObjectReturns[returned.function] = PropertyObjectContext(returned: returned, fact: fact)
            }
        }
        var reads: [String: Bool] = [:]
        for file in files {
            for (name, safe) in file.contextNameReads { reads[name] = (reads[name] ?? true) && safe }
        }
        for file in files {
            for property in file.typeProperties where managedObjectClasses.contains(property.type) { managedObjectMembers.insert(property) }
        }
        neverPerformedContexts = Set(reads.filter { $0.value && contextProperties[$0.key]?.queue == .private && contextProperties[$0.key]?.makesNew == false }.keys)
        let callGraph = CallGraph(
            files: files, entryPoints: entryPoints, contexts: contextProperties, contextFunctions: contextFunctions, declaredElsewhere: declaredElsewhere,
            overloads: overloads)
        functionQueues = callGraph.inferredQueues()
        parameterObjects = callGraph.parameterObjects()
    }

    /// What the files declare, read first: types' supertypes and isolation, did-save
    /// selectors, fetch request factories, and how many times each function name is declared.
    private struct Declarations {
        var superclasses: [String: String] = [:]
        var conformances: [String: [String]] = [:]
        var mainActorTypes: Set<String> = []
        var isolation = TypeIsolation()
        var factories: [String: [RequestFactory]] = [:]
        var functions: [String: Int] = [:]
        var didSaveSelectors: Set<String> = []
        var entityClasses: Set<String> = []

        init(_ files: [FileFacts], declaredElsewhere: Set<String>) {
            for file in files {
                entityClasses.formUnion(file.entityClasses)
                // By index: only the name is read, not a copy of every function's fact.
                for index in file.functions.indices {
                    let name = file.functions[index].name
                    functions[name, default: declaredElsewhere.contains(name) ? 1 : 0] += 1
                }
                superclasses.merge(file.superclasses) { first, _ in first }
                conformances.merge(file.conformances) { $0 + $1 }
                mainActorTypes.formUnion(file.mainActorTypes)
                isolation.add(file)
                didSaveSelectors.formUnion(file.didSaveSelectors)
                for (name, factory) in file.requestFactories { factories[name, default: []].append(factory) }
            }
        }
    }

    /// Overloads, and the facts of functions declared once (or called by a label only
    /// one of their declarations has): context parameter uses, closure parameter
    /// queues, context extension uses, object returns.
    private mutating func indexFunctionFacts(_ files: [FileFacts], declaredFunctions: [String: Int], declaredElsewhere: Set<String>) {
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
    }

    /// The queue of each context property and function, by name and by type; a
    /// protocol's context requirement, as its conformers agree on it.
    private mutating func indexContexts(_ files: [FileFacts], conformances: [String: [String]]) {
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

    /// Whether a `Task { }` made in a synchronous method of `type` (nil: a global
    /// function) not marked `@MainActor` runs on Swift's global executor: `Task.init`
    /// inherits the actor of the code around it, and a nonisolated function has none
    /// (SE-0304, "Task API"; SE-0316 for the isolation a type infers). So when the type
    /// is certainly nonisolated (`isNonisolated`), or a managed object class the project
    /// only extends (Core Data's classes, and an Objective-C one, have no actor), and no
    /// setting makes code `@MainActor` by default.
    func startsTasksOffActors(_ type: String?, isManagedObjectClass: Bool) -> Bool {
        guard !isolation.changesDefaultIsolation else { return false }
        if isNonisolated(type) { return true }
        guard let type, isManagedObjectClass, !mainActorTypes.contains(type), !isolation.actorTypes.contains(type) else { return false }
        let inherited = (conformances[type] ?? []) + (superclasses[type].map { [$0] } ?? [])
        return inherited.allSatisfy { Self.nonisolatedBases.contains($0) || isNonisolated($0, depth: 1) }
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
