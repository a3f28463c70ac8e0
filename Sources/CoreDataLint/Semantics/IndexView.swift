import CtxdebugHelpers
import SwiftSyntax

/// One question the rules pass asks the project index.
enum IndexQuestion: Hashable, Sendable {
    case contextProperty(String)
    case typedContextProperty(type: String?, name: String)
    case contextFunction(String)
    case managedObjectClass(String)
    case requestFactory(String)
    case didSaveSelector(String)
    case functionQueue(String)
    case parameterUse(String)
    case hasParameterUses
    case objectReturn(String)
    case hasObjectReturns
    case extensionUse(String)
    case closureParameterQueue(String)
    case propertyObjectReturn(String)
    case hasPropertyObjectReturns
    case neverPerformed(String)
    case parameterObjects(String)
    case hasExtensionUses
    case mainActorType(String?)
    case viewController(String?)
    case swiftUIView(String?)
    // Out of line: the largest question (49 bytes inline), which would make every
    // question kept for the second pass (each distinct one, for the whole run) larger.
    indirect case entryReason(name: String, firstLabel: String?, type: String?, isAsync: Bool)
    case concurrencyPlacement(name: String, type: String?, isAsync: Bool, isNonisolated: Bool, isStatic: Bool, isTest: Bool)
    case sessionDelegateQueue(String?)
    case watchSessionDelegate(String?)
    case actorType(String?)
    case startsTasksOffActors(String?)
    case managedObjectMember(type: String, name: String)
}

extension IndexQuestion {
    /// The questions whether the index holds any fact of a kind: the rules ask the
    /// questions of that kind only when it does.
    static let holdsAnyKinds: Set<IndexQuestion> = [.hasParameterUses, .hasObjectReturns, .hasPropertyObjectReturns, .hasExtensionUses]

    /// One of `holdsAnyKinds`, told by its case (no hashing: every question answered
    /// no is asked this).
    var isHoldsAny: Bool {
        switch self {
        case .hasParameterUses, .hasObjectReturns, .hasPropertyObjectReturns, .hasExtensionUses: true
        default: false
        }
    }
}

/// What the index answered.
enum IndexAnswer: Hashable, Sendable {
    /// No such fact, queue, use or objects: the index knows none (most answers). One
    /// case for them all, inline, since a question tells which kind it asked.
    case none
    // Out of line: every answer larger than a string (33 to 73 bytes inline), which
    // would make every answer kept for the second pass (each distinct one, for the
    // whole run: 147,000 on the bench's tree) larger: 24 bytes an answer, not 80.
    indirect case fact(ContextFact)
    case flag(Bool)
    case factory(RequestFactory?)
    indirect case queue(FunctionQueueFact)
    indirect case use(ContextParameterUse)
    indirect case objects(ObjectReturn)
    indirect case extensionUse(ContextExtensionUse)
    indirect case closureQueue(ClosureParameterQueue)
    indirect case propertyObjects(PropertyObjectContext)
    case parameters([ParameterObjects])
    case text(String?)
    case placement(ConcurrencyPlacement?)
    case session(SessionDelegateQueue?)

    /// `answer(value)`, or `.none` when there is no value.
    static func some<Value>(_ value: Value?, _ answer: (Value) -> IndexAnswer) -> IndexAnswer {
        value.map(answer) ?? .none
    }
}

extension ProjectIndex {
    /// The answer to one question: every read of the index by the rules pass goes
    /// through here, so that a file's answers can be checked against another index.
    func answer(_ question: IndexQuestion) -> IndexAnswer {
        switch question {
        case .contextProperty(let name): .some(contextProperties[name], IndexAnswer.fact)
        case .typedContextProperty(let type, let name): .some(contextProperty(name, in: type), IndexAnswer.fact)
        case .contextFunction(let name): .some(contextFunctions[name], IndexAnswer.fact)
        case .managedObjectClass(let name): .flag(managedObjectClasses.contains(name))
        case .requestFactory(let name): .factory(requestFactories[name])
        case .didSaveSelector(let name): .flag(didSaveSelectors.contains(name))
        case .functionQueue(let name): .some(functionQueues[functionKey(name)], IndexAnswer.queue)
        case .parameterUse(let key): .some(contextParameterUses[key], IndexAnswer.use)
        case .hasParameterUses: .flag(!contextParameterUses.isEmpty)
        case .objectReturn(let key): .some(objectReturns[key], IndexAnswer.objects)
        case .hasObjectReturns: .flag(!objectReturns.isEmpty)
        case .extensionUse(let name): .some(contextExtensionUses[name], IndexAnswer.extensionUse)
        case .hasExtensionUses: .flag(!contextExtensionUses.isEmpty)
        case .closureParameterQueue(let key): .some(closureParameterQueues[key], IndexAnswer.closureQueue)
        case .propertyObjectReturn(let name): .some(propertyObjectReturns[name], IndexAnswer.propertyObjects)
        case .hasPropertyObjectReturns: .flag(!propertyObjectReturns.isEmpty)
        case .neverPerformed(let name): .flag(neverPerformedContexts.contains(name))
        case .parameterObjects(let name): .parameters(parameterObjects[functionKey(name)] ?? [])
        case .mainActorType(let type): .flag(entryPoints.isMainActor(type))
        case .viewController(let type): .flag(entryPoints.isViewController(type))
        case .swiftUIView(let type): .flag(entryPoints.isSwiftUIView(type))
        case .entryReason(let name, let firstLabel, let type, let isAsync):
            .text(entryPoints.reason(name: name, firstLabel: firstLabel, type: type, isAsync: isAsync))
        case .concurrencyPlacement(let name, let type, let isAsync, let isNonisolated, let isStatic, let isTest):
            .placement(
                entryPoints.concurrencyPlacement(name, type: type, isAsync: isAsync, isNonisolated: isNonisolated, isStatic: isStatic, isTest: isTest))
        case .sessionDelegateQueue(let type): .session(entryPoints.sessionDelegateQueue(type))
        case .watchSessionDelegate(let type): .flag(entryPoints.isWatchSessionDelegate(type))
        case .actorType(let type): .flag(entryPoints.isActor(type))
        case .startsTasksOffActors(let type):
            .flag(entryPoints.startsTasksOffActors(type, isManagedObjectClass: type.map(managedObjectClasses.contains) ?? false))
        case .managedObjectMember(let type, let name): .flag(managedObjectMembers.contains(TypedName(type: type, name: name)))
        }
    }
}

/// The rules pass's view of the project index. When it records, it keeps every
/// question asked and its answer: the first pass runs the rules over a file against an
/// index of that file alone, and the second keeps those findings when the project's
/// index gives every recorded question the same answer (the rules read nothing else
/// of the project), instead of parsing the file again.
final class IndexView {
    private let index: ProjectIndex
    /// Names of `NSManagedObject` subclasses other files declare, known so far.
    private let extraManagedObjectClasses: (@Sendable (String) -> Bool)?
    /// Whether another file's own index holds any of a kind (`.hasParameterUses`...),
    /// known so far: the project's index then holds some too, most likely.
    private let heldElsewhere: (@Sendable (IndexQuestion) -> Bool)?
    /// Unchecked exclusivity: a view is asked by one walker on one thread, and no access
    /// to the answers overlaps another.
    @exclusivity(unchecked) private(set) var answers: [IndexQuestion: IndexAnswer]?

    init(
        _ index: ProjectIndex, recording: Bool = false, extraManagedObjectClasses: (@Sendable (String) -> Bool)? = nil,
        heldElsewhere: (@Sendable (IndexQuestion) -> Bool)? = nil
    ) {
        self.index = index
        self.extraManagedObjectClasses = extraManagedObjectClasses
        self.heldElsewhere = heldElsewhere
        // A file asks a few hundred questions: room for them from the start, instead of
        // rehashing every question asked so far each time the table doubles.
        answers = recording ? Dictionary(minimumCapacity: 256) : nil
    }

    /// The API table of the run: the same for a file's own index and the project's.
    var apiTable: APITable { index.apiTable }

    private func ask(_ question: IndexQuestion) -> IndexAnswer {
        if let known = answers?[question] { return known }
        var answer = index.answer(question)
        if case .managedObjectClass(let name) = question, answer == .flag(false), extraManagedObjectClasses?(name) == true {
            answer = .flag(true)
        }
        // "Does the index hold any?" answered as the project's index will most likely
        // answer it: no when only this file is known would make every file that calls or
        // reads a member disagree with a project that holds one, and be parsed again.
        // Yes only asks the questions the flag spares; the second pass checks them all.
        if answer == .flag(false), question.isHoldsAny, heldElsewhere?(question) == true {
            answer = .flag(true)
        }
        answers?[question] = answer
        return answer
    }

    private func fact(_ question: IndexQuestion) -> ContextFact? {
        guard case .fact(let fact) = ask(question) else { return nil }
        return fact
    }

    private func flag(_ question: IndexQuestion) -> Bool {
        guard case .flag(let flag) = ask(question) else { return false }
        return flag
    }

    // Whether the index holds any of a kind, asked (and recorded) at the first call
    // or member access that needs it, then kept: every call and member access asks.
    private lazy var hasParameterUses = flag(.hasParameterUses)
    private lazy var hasObjectReturns = flag(.hasObjectReturns)
    private lazy var hasPropertyObjectReturns = flag(.hasPropertyObjectReturns)
    private lazy var hasExtensionUses = flag(.hasExtensionUses)

    func contextProperty(named name: String) -> ContextFact? { fact(.contextProperty(name)) }

    /// The fact of `type`'s property, or the name's when the type does not declare it.
    func contextProperty(_ name: String, in type: String?) -> ContextFact? { fact(.typedContextProperty(type: type, name: name)) }

    func contextFunction(named name: String) -> ContextFact? { fact(.contextFunction(name)) }

    func isManagedObjectClass(_ name: String) -> Bool { flag(.managedObjectClass(name)) }

    /// Whether the managed object class `type` declares the property `name` somewhere in
    /// the project (`ProjectIndex.managedObjectMembers`).
    func isManagedObjectMember(_ name: String, of type: String) -> Bool { flag(.managedObjectMember(type: type, name: name)) }

    func requestFactory(named name: String) -> RequestFactory? {
        guard case .factory(let factory) = ask(.requestFactory(name)) else { return nil }
        return factory
    }

    func isDidSaveSelector(_ name: String) -> Bool { flag(.didSaveSelector(name)) }

    /// Where a function runs, by its name, or its full name (`getDefaultPrinter(context:)`)
    /// when it is overloaded: an overload is another function.
    func functionQueue(of name: String) -> FunctionQueueFact? {
        guard case .queue(let queue) = ask(.functionQueue(name)) else { return nil }
        return queue
    }

    func isMainActor(_ type: String?) -> Bool { flag(.mainActorType(type)) }
    func isViewController(_ type: String?) -> Bool { flag(.viewController(type)) }
    func isSwiftUIView(_ type: String?) -> Bool { flag(.swiftUIView(type)) }

    func entryReason(name: String, firstLabel: String?, type: String?, isAsync: Bool) -> String? {
        guard case .text(let text) = ask(.entryReason(name: name, firstLabel: firstLabel, type: type, isAsync: isAsync)) else { return nil }
        return text
    }

    func concurrencyPlacement(_ name: String, type: String?, isAsync: Bool, isNonisolated: Bool, isStatic: Bool, isTest: Bool) -> ConcurrencyPlacement? {
        let question = IndexQuestion.concurrencyPlacement(name: name, type: type, isAsync: isAsync, isNonisolated: isNonisolated, isStatic: isStatic, isTest: isTest)
        guard case .placement(let placement) = ask(question) else { return nil }
        return placement
    }

    /// An actor the project declares (one that names no executor of its own).
    func isActor(_ type: String?) -> Bool { type != nil && flag(.actorType(type)) }

    /// Whether a `Task { }` made in a synchronous method of `type` not marked
    /// `@MainActor` runs on Swift's global executor (`EntryPoints.startsTasksOffActors`).
    func startsTasksOffActors(_ type: String?) -> Bool { flag(.startsTasksOffActors(type)) }

    /// A type that conforms to `WCSessionDelegate`.
    func isWatchSessionDelegate(_ type: String?) -> Bool { type != nil && flag(.watchSessionDelegate(type)) }

    func sessionDelegateQueue(_ type: String?) -> SessionDelegateQueue? {
        guard case .session(let queue) = ask(.sessionDelegateQueue(type)) else { return nil }
        return queue
    }

    /// The function a call calls, when it uses the context handed to it straight on
    /// the caller's queue, with that argument.
    func contextParameterUse(of call: FunctionCallExprSyntax) -> (ContextParameterUse, ExprSyntax)? {
        guard !call.arguments.isEmpty, hasParameterUses, let name = Expressions.lastName(call.calledExpression) else { return nil }
        for argument in call.arguments {
            if case .use(let use) = ask(.parameterUse("\(name)(\(argument.label?.text ?? "_"):)")) { return (use, argument.expression) }
        }
        return nil
    }

    /// The parameters of a function whose every call site hands objects of one context,
    /// by its name (its full name when it is overloaded).
    func parameterObjects(of function: String) -> [ParameterObjects] {
        guard case .parameters(let parameters) = ask(.parameterObjects(function)) else { return [] }
        return parameters
    }

    /// A private context property no code in the project performs on, hands on or keeps
    /// in a local (and not `public`).
    func isNeverPerformed(_ name: String) -> Bool { flag(.neverPerformed(name)) }

    /// The project function a call calls, when it returns objects of a context property.
    func propertyObjectReturn(of call: FunctionCallExprSyntax) -> PropertyObjectContext? {
        guard hasPropertyObjectReturns, let name = Expressions.lastName(call.calledExpression),
            case .propertyObjects(let returned) = ask(.propertyObjectReturn(name))
        else { return nil }
        return returned
    }

    /// The queue a project function runs the closure `closure` is handed as (a trailing
    /// closure, or the argument labelled `label`), when it runs it only on one.
    func closureParameterQueue(of call: FunctionCallExprSyntax, closure: ClosureExprSyntax, label: String?) -> ClosureParameterQueue? {
        guard let name = Expressions.lastName(call.calledExpression) else { return nil }
        let key = call.trailingClosure?.id == closure.id ? "\(name)(trailing)" : "\(name)(\(label ?? "_"):)"
        guard case .closureQueue(let queue) = ask(.closureParameterQueue(key)) else { return nil }
        return queue
    }

    /// `context.member` or `context.member(…)`: a method or computed property of a context
    /// extension that uses a confined member of its receiver straight in its body.
    func contextExtensionUse(_ access: MemberAccessExprSyntax) -> ContextExtensionUse? {
        guard access.base != nil, hasExtensionUses, case .extensionUse(let use) = ask(.extensionUse(access.declName.baseName.text)) else { return nil }
        let isCalled = access.parent?.as(FunctionCallExprSyntax.self)?.calledExpression.id == access.id
        return use.isProperty != isCalled ? use : nil
    }

    /// The project function a call calls, when it returns objects of the context it is
    /// handed, with that argument.
    func objectReturn(of call: FunctionCallExprSyntax) -> (ObjectReturn, ExprSyntax)? {
        guard !call.arguments.isEmpty, hasObjectReturns, let name = Expressions.lastName(call.calledExpression) else { return nil }
        for argument in call.arguments {
            if case .objects(let returned) = ask(.objectReturn("\(name)(\(argument.label?.text ?? "_"):)")) { return (returned, argument.expression) }
        }
        return nil
    }
}

/// Every question the first pass asked, with its answer, each distinct pair kept once
/// for the whole run (files ask much the same questions): a file keeps only the
/// numbers of its pairs, a few bytes each.
final class AnswerTable: Sendable {
    struct Pair: Hashable, Sendable {
        var question: IndexQuestion
        var answer: IndexAnswer
    }

    /// A pair with its hash computed before the table's lock is taken: inside it, a
    /// lookup only combines an integer, and compares pairs only when the hashes match.
    private struct Hashed: Hashable, Sendable {
        var pair: Pair
        var hash: Int

        init(_ pair: Pair) {
            self.pair = pair
            hash = pair.hashValue
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
        static func == (a: Hashed, b: Hashed) -> Bool { a.hash == b.hash && a.pair == b.pair }
    }

    private let table = LockedValue<[Hashed: Int32]>([:])

    /// The numbers of a file's pairs.
    func numbers(of answers: [IndexQuestion: IndexAnswer]) -> [Int32] {
        let pairs = answers.map { Hashed(Pair(question: $0.key, answer: $0.value)) }
        return table.withLock { table in
            pairs.map { pair in
                // One probe of the table: a pair not in it yet is added with the next
                // number, by the default subscript's in-place access.
                let next = Int32(table.count)
                return Self.value(&table[pair, default: next])
            }
        }
    }

    private static func value(_ number: inout Int32) -> Int32 { number }

    /// For each pair, by number, whether `index` gives its question the same answer.
    func agreement(with index: ProjectIndex) -> [Bool] {
        table.withLock { table in
            var agrees = [Bool](repeating: false, count: table.count)
            for (pair, number) in table { agrees[Int(number)] = index.answer(pair.pair.question) == pair.pair.answer }
            return agrees
        }
    }
}
