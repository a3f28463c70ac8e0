import SwiftSyntax

/// A place in the project, for messages: "CoreDataStack.swift:48".
struct SourcePlace: Sendable, Hashable {
    /// The file's name, without its folders.
    var file: String
    var line: Int

    /// A row of the API table has no line: "the API table", ".ctxdebug-lint.yml".
    var described: String { line > 0 ? "\(file):\(line)" : file }
}

/// What tells the queue of a context: tokens of its setup, or another context
/// property or function whose queue the project index resolves.
enum QueueEvidence: Sendable, Hashable {
    /// `.privateQueueConcurrencyType`, `newBackgroundContext()`, `viewContext`...
    case queue(ContextQueue)
    /// `stack.savingContext`: the queue of the property or function with that name.
    case name(String)
    /// Nothing the first pass can read: a parameter, an unknown call.
    case unknown
}

/// A context-valued property, or a function that returns a context.
struct ContextDeclaration: Sendable {
    enum Kind: Sendable { case storedProperty, computedProperty, function }
    var name: String
    var kind: Kind
    /// Nil when the declaration alone does not tell (`var context: NSManagedObjectContext!`).
    var evidence: QueueEvidence?
    var place: SourcePlace
    /// A function whose body makes a new context each time it is called.
    var makesNew = false
    /// A protocol's requirement: the same property as its implementations', not another.
    var isRequirement = false
    /// The type (or extended type) that declares it.
    var type: String? = nil
}

/// `controller.managedObjectContext = stack.savingContext`, in any function.
struct ContextAssignment: Sendable {
    var property: String
    var evidence: QueueEvidence
    /// The value's source text, for messages.
    var valueText: String
    var place: SourcePlace
    /// The type of the object assigned to, when the code tells it: `self.context = …`,
    /// `controller.context = …` after `let controller = … as! NoteViewController`.
    var receiverType: String? = nil
}

/// `init(context: NSManagedObjectContext) { self.context = context }`: the property an
/// init parameter is stored into.
struct InitParameterStore: Sendable {
    var type: String
    var label: String
    var property: String
}

/// `NotesStore(context: stack.savingContext)`: an argument that may be a context, handed
/// to a type's initializer.
struct InitArgument: Sendable {
    var type: String
    var label: String
    var evidence: QueueEvidence
    var valueText: String
    var place: SourcePlace
}

/// `static func count(in context: NSManagedObjectContext) -> Int { try context.count(for: …) }`:
/// a function that calls a context method straight on its context parameter, so a
/// call of it uses the context it is handed, on the caller's queue.
struct ContextParameterUse: Sendable, Hashable {
    var function: String
    /// The parameter's argument label, "_" for none.
    var label: String
    var method: String
    var place: SourcePlace
    /// A getter of the context's state (`context.hasChanges`), not a method.
    var isGetter = false

    /// "calls save() on", "reads hasChanges of".
    var described: String { isGetter ? "reads \(method) of" : "calls \(method)() on" }
}

/// `extension NSManagedObjectContext { var uiContext: NSManagedObjectContext? { userInfo["ui"] as? … } }`:
/// a method or computed property of a context extension that uses a member Core Data
/// confines to the context's queue on `self`, straight in its body (not in a `perform`
/// block), so that `context.uiContext` uses `context` on the caller's queue.
struct ContextExtensionUse: Sendable, Hashable {
    /// The method's or property's name.
    var member: String
    var isProperty: Bool
    /// The confined member it uses: `userInfo`, `fetch`...
    var confined: String
    var place: SourcePlace
}

/// `func fetchUser(id: String, success: @escaping (Data) -> Void) { … DispatchQueue.main.async
/// { success(data) } }`: a function that calls (or hands to `Task.detached`) its closure
/// parameter only on one known queue, so a closure passed there runs on that queue.
struct ClosureParameterQueue: Sendable, Hashable {
    enum Queue: Sendable, Hashable { case main, background }
    var function: String
    /// The parameter's argument label, "_" for none; a trailing closure matches a
    /// function's only closure parameter.
    var label: String
    var isOnlyClosureParameter: Bool
    var queue: Queue
    /// Where the function calls it, for messages.
    var place: SourcePlace
}

/// `static func recent(in context: NSManagedObjectContext) -> [Note] { try context.fetch(…) }`:
/// a function that fetches (or looks up) objects from the context it is given and
/// returns a managed object type: what it returns belongs to that context.
struct ObjectReturn: Sendable, Hashable {
    var function: String
    /// The context parameter's argument label, "_" for none.
    var label: String
    /// The returned type (its element, for an array), to check it is a managed object class.
    var type: String
    var isCollection: Bool
}

/// `func getBookmarks() -> [Bookmark] { let context = stack.context; … context.fetch(…) … }`:
/// a function that fetches (or looks up) objects from a context property (straight, or
/// through a `let` set from one) and returns a managed object type: what it returns
/// belongs to that property's context, wherever the fetch ran.
struct PropertyObjectReturn: Sendable, Hashable {
    var function: String
    /// The context property or context-returning function the objects come from.
    var context: String
    var type: String
    var isCollection: Bool
}

/// Where a call runs relative to the function that makes it. Every call has one, kept
/// for the whole run: the cases with a payload are `indirect` (a pointer, 8 bytes
/// inline) so that the value stays as small as a single `String` was.
enum CallPlacement: Sendable, Hashable {
    /// Straight in the function's body, or in a closure that runs right there.
    case direct
    case main
    case background
    /// Inside `x.perform { }` or `x.performAndWait { }`, with the last name of `x`.
    indirect case perform(String)
    /// On the queue of a private context no property names: `performBackgroundTask`'s
    /// block, or `perform { }` (not `performAndWait`, which runs on the caller's thread)
    /// of a local made private right there (`newBackgroundContext()`): the queue's name,
    /// and the block's, for messages.
    indirect case privateQueue(queue: String, block: String)
    /// Inside `perform { }` of a local set from a project function or property
    /// (`let derived = storage.newDerivedStorage()`): the local's name, and the name of
    /// what made it, whose queue the index tells.
    indirect case performOnLocal(String, madeBy: String)
    /// `other.method()` inside `self.prop.perform { }` (or `performAndWait`), where `other`
    /// is a new instance this function made (`let other = Store(url: url)`): the method
    /// runs on this instance's `prop` queue, not on the new instance's own `prop`.
    indirect case performOnOtherInstance(String, andWait: Bool)
    /// In a closure handed to an API the linter does not know, or outside any function.
    case unknown
}

/// A function's argument labels, to tell overloads apart: `getDefaultPrinter()` and
/// `getDefaultPrinter(context:)` are two functions, and a call's labels tell which one
/// it calls. Kept as one string ("_:context:", inline for most functions), since every
/// function and call of the project keeps one.
struct ParameterLabels: Sendable, Hashable {
    /// Each parameter's argument label and a colon, "_" for none: "_:context:".
    var joined: String
    /// Bit `i` set when parameter `i` has a default value: a call may leave it out.
    var defaulted: UInt64
    /// A variadic parameter takes any number of arguments: any call may reach it.
    var isVariadic = false

    init(joined: String = "", defaulted: UInt64 = 0, isVariadic: Bool = false) {
        self.joined = joined
        self.defaulted = defaulted
        self.isVariadic = isVariadic
    }

    init(_ parameters: FunctionParameterListSyntax) {
        var joined = "", defaulted: UInt64 = 0, isVariadic = false
        for (offset, parameter) in parameters.enumerated() {
            joined += parameter.firstName.text
            joined += ":"
            if parameter.defaultValue != nil, offset < 64 { defaulted |= 1 << UInt64(offset) }
            if parameter.ellipsis != nil { isVariadic = true }
        }
        self.init(joined: joined, defaulted: defaulted, isVariadic: isVariadic)
    }

    static func split(_ joined: String) -> [String] {
        // On the UTF-8 bytes: ":" is one byte, never part of another character.
        joined.utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false).dropLast().map { String(Substring($0)) }
    }

    var labels: [String] { Self.split(joined) }

    /// "getDefaultPrinter(context:)", "reload()".
    func fullName(_ base: String) -> String { "\(base)(\(joined))" }

    /// Past 64 parameters every one may be left out: the question errs towards yes.
    private func isDefaulted(_ offset: Int) -> Bool { offset >= 64 || defaulted & (1 << UInt64(offset)) != 0 }

    /// Whether a call with these argument labels (`joined`'s form) and this many trailing
    /// closures may call this function: its labels in order, the parameters it skips
    /// having defaults. Errs towards yes (a trailing closure may fill any parameter left),
    /// so that a call that may reach two overloads counts as a call of both.
    func accepts(_ arguments: String, trailingClosures: Int) -> Bool {
        accepts(Self.split(arguments), trailingClosures: trailingClosures, own: labels)
    }

    /// `accepts(_:trailingClosures:)` with the call's labels and this function's
    /// (`labels`) already split: a name's overloads are matched against every call of it.
    func accepts(_ arguments: [String], trailingClosures: Int, own labels: [String]) -> Bool {
        if isVariadic { return true }
        var next = 0
        for label in arguments {
            while next < labels.count, labels[next] != label {
                guard isDefaulted(next) else { return false }
                next += 1
            }
            guard next < labels.count else { return false }
            next += 1
        }
        if trailingClosures > 0 { return labels.count - next >= 1 }
        return (next..<labels.count).allSatisfy(isDefaulted)
    }
}

/// A call of a function by its base name.
struct CallFact: Sendable {
    var callee: String
    /// `Type.method()`: the type named as the receiver, a static or class method of it
    /// (or of a type the project does not declare, then no call of the project's).
    var receiverType: String? = nil
    /// The function making the call, nil outside any function.
    var caller: String?
    var callerType: String?
    var placement: CallPlacement
    var place: SourcePlace
    /// Arguments, by label, that are a `let` of the caller set to a fetch's result
    /// (`let users = (try? container.viewContext.fetch(request)) ?? []`), with what tells
    /// the fetched context's queue. Empty for most calls.
    var objectArguments: [String: QueueEvidence] { handed?.objectArguments ?? [:] }
    /// Arguments, by label, that are an object parameter of the caller itself, by its
    /// name there (`func start(for c: Conversation) { … self.fire(for: c) }`): what that
    /// parameter holds, when every call of the caller agrees, this one holds too.
    var parameterArguments: [String: String] { handed?.parameterArguments ?? [:] }
    /// Both, out of line: nil for the calls that hand neither (nearly all), so a call's
    /// fact is no larger than before they were read (every call of the project is kept).
    private let handed: HandedArguments?
    /// The call's argument labels ("_:context:", each label and a colon, as
    /// `ParameterLabels.joined` holds a function's), by their
    /// number in its file's `labelTable` (the low 24 bits), and its trailing closures
    /// (the high 8): which of a name's overloads it may call. Numbers, not a string,
    /// placed last with the calling function's, so that a fact kept for every call of
    /// the project is 112 bytes, as many as before labels were read.
    private var labelsAndClosures: UInt32 = 0
    /// The calling function, by its place in its file's `functions` (-1: none, an
    /// initializer): its labels tell it from its overloads.
    var callerFunction: Int32 = -1

    /// The most distinct argument label lists one file may hold: 16 million, each
    /// written out at least once, hundreds of megabytes of one source file.
    static let labelNumbers: Int32 = 1 << 24

    var labels: Int32 { Int32(labelsAndClosures & 0xFF_FFFF) }
    var trailingClosures: Int { Int(labelsAndClosures >> 24) }

    init(
        callee: String, receiverType: String? = nil, caller: String?, callerType: String?, placement: CallPlacement, place: SourcePlace,
        objectArguments: [String: QueueEvidence] = [:], parameterArguments: [String: String] = [:],
        labels: Int32 = 0, trailingClosures: Int = 0, callerFunction: Int32 = -1
    ) {
        // More than 255 trailing closures fit any overload as 255 do.
        labelsAndClosures = UInt32(clamping: labels) & 0xFF_FFFF | UInt32(UInt8(clamping: trailingClosures)) << 24
        self.callerFunction = callerFunction
        self.callee = callee
        self.receiverType = receiverType
        self.caller = caller
        self.callerType = callerType
        self.placement = placement
        self.place = place
        handed = objectArguments.isEmpty && parameterArguments.isEmpty ? nil : HandedArguments(objectArguments: objectArguments, parameterArguments: parameterArguments)
    }
}

/// A call's `objectArguments` and `parameterArguments`, when it has any.
final class HandedArguments: Sendable {
    let objectArguments: [String: QueueEvidence]
    let parameterArguments: [String: String]

    init(objectArguments: [String: QueueEvidence], parameterArguments: [String: String]) {
        self.objectArguments = objectArguments
        self.parameterArguments = parameterArguments
    }
}

/// A function or method declared in the project.
struct FunctionFact: Sendable {
    var name: String
    var firstLabel: String?
    /// The type (or extended type, or protocol) that declares it.
    var type: String?
    var isIBAction: Bool
    /// `@MainActor` on the function or on its type.
    var isMainActor: Bool
    /// `override` or `@objc`: the frameworks may call it where the project cannot see.
    var isCalledFromOutside: Bool
    /// `static` or `class`: called as `Type.method()`.
    var isStatic = false
    /// `async`, and not on its caller's actor (`nonisolated(nonsending)`, an `isolated` parameter).
    var isAsync = false
    /// `nonisolated`.
    var isNonisolated = false
    /// A Swift Testing `@Test`.
    var isTest = false
    var place: SourcePlace
    /// Parameters whose type is a type name or an array of one (managed objects, maybe),
    /// by argument label ("_" for none), with their names in the body.
    var objectParameters: [String: String] = [:]
    /// Its argument labels: its overloads' are others.
    var signature = ParameterLabels()
    /// Its first parameter is a `WCSession`: a WatchConnectivity delegate method, in a
    /// type that conforms.
    var takesWatchSession = false
}

/// A method with no parameters that builds and returns a fetch request.
struct RequestFactory: Sendable, Hashable {
    var entity: String?
    var hasLimit: Bool
    var hasBatchSize: Bool
    var hasPredicate = false

    /// The request the factory returns, as the rules see it.
    var request: FetchRequestInfo {
        FetchRequestInfo(entity: entity, hasLimit: hasLimit, hasBatchSize: hasBatchSize, hasPredicate: hasPredicate)
    }
}

/// The facts one file contributes to the `ProjectIndex`: small values, so the syntax
/// tree can be dropped between the two passes.
struct FileFacts: Sendable {
    var superclasses: [String: String] = [:]
    /// The classes a Core Data model names for its entities (`representedClassName`):
    /// managed object classes whatever their source says (Objective-C, or generated by
    /// Xcode and in no source at all). Only the settings' facts hold any.
    var entityClasses: Set<String> = []
    /// Every type's inherited and conformed-to names, extensions included.
    var conformances: [String: [String]] = [:]
    var mainActorTypes: Set<String> = []
    /// Types declared here (not extended): the project's own.
    var declaredTypes: Set<String> = []
    /// `actor` types, and those (actors) that name their own executor (`unownedExecutor`),
    /// which may be any queue.
    var actorTypes: Set<String> = []
    var customExecutorTypes: Set<String> = []
    /// A manifest that makes code `@MainActor` by default (`defaultIsolation(MainActor.self)`)
    /// or runs nonisolated async functions on their caller's actor
    /// (`NonisolatedNonsendingByDefault`): an unmarked async function may then run on
    /// the main queue.
    var changesDefaultIsolation = false
    /// Types that make a `URLSession` with `delegate: self`, and the queue its delegate
    /// methods run on: main for `delegateQueue: .main`, nil for a queue of the session's
    /// own (`delegateQueue: nil` or `OperationQueue()`), unknown otherwise.
    var sessionDelegateQueues: [String: [SessionDelegateQueue]] = [:]
    var didSaveSelectors: Set<String> = []
    var requestFactories: [(String, RequestFactory)] = []
    var contextDeclarations: [ContextDeclaration] = []
    /// Properties named like a context that hold something else (`var context =
    /// RenderContext()`): a use of that name on a value of unknown type may be either.
    var otherContextNamedProperties: Set<String> = []
    /// Names like a context's (they contain "ontext") read in this file, and whether
    /// every read is a use of a confined member, an insert (`Entity(context: name)`) or an
    /// assignment: false when one calls `perform` on it, hands it on, keeps it in a local,
    /// or the property is `public`.
    var contextNameReads: [String: Bool] = [:]
    var contextAssignments: [ContextAssignment] = []
    var initStores: [InitParameterStore] = []
    var initArguments: [InitArgument] = []
    var functions: [FunctionFact] = []
    var contextParameterUses: [ContextParameterUse] = []
    var objectReturns: [ObjectReturn] = []
    var propertyObjectReturns: [PropertyObjectReturn] = []
    var contextExtensionUses: [ContextExtensionUse] = []
    var closureParameterQueues: [ClosureParameterQueue] = []
    var calls: [CallFact] = []
    /// The argument labels of the file's calls, each distinct one once: a call keeps its
    /// number (`CallFact.labels`).
    var labelTable: [String] = []
    /// Functions named in `#selector(…)` or handed on as values: they have callers the
    /// project cannot see.
    var escapingNames: Set<String> = []
    /// The inputs of the dataflow analysis's summaries (Dataflow/).
    var dataflow = DataflowFacts()
    /// Every property a type or extension declares, by the type's name: a managed object
    /// class's are its members wherever they are declared (`ProjectIndex.managedObjectMembers`).
    var typeProperties: [TypedName] = []
}

extension FileFacts {
    /// A call's argument labels, in `ParameterLabels.joined`'s form.
    func callLabels(_ call: CallFact) -> String {
        labelTable.indices.contains(Int(call.labels)) ? labelTable[Int(call.labels)] : ""
    }
}

/// Where a `URLSession`'s delegate methods run, from its `delegateQueue:` argument.
enum SessionDelegateQueue: Sendable, Hashable {
    /// `.main`, `OperationQueue.main`.
    case main
    /// `nil` or `OperationQueue()`: a serial operation queue the session makes, or a new
    /// one, off the main queue and outside every context's.
    case background
    /// Any other queue.
    case unknown
}
