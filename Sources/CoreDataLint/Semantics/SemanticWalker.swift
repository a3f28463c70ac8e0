import SwiftSyntax

/// A name in scope and what it holds.
struct Binding {
    /// Nil when the name holds nothing the rules follow; it still hides outer names.
    var value: Value?
    /// How many queue boundaries (functions, escaping closures) enclosed the declaration.
    var queueDepth: Int
    /// A parameter of the function: another instance than `self`, as far as the code tells.
    var isParameter = false

    /// A property of the type being read: outside every function.
    static func member(_ value: Value) -> Binding {
        Binding(value: value, queueDepth: 0)
    }
}

/// A function or closure being read.
struct Frame {
    var queue: ExecutionQueue
    /// The function's name, or the enclosing function's for a closure.
    var functionName: String
    /// An `@IBAction`, an `export…` method, a SwiftUI `Button` action, or a closure
    /// that runs inside one on the same queue.
    var isActionHandler: Bool
    var isDidSaveObserver: Bool
    /// How many queue boundaries enclose the code of this frame.
    var queueDepth: Int
    /// Where the function or closure starts: tells frames apart.
    var start: Int
    /// A closure that runs apart from the code around it (not `{ }()` or `forEach`).
    var isClosure = false
    /// A `performAndWait` block: it runs on the caller's thread, whose queue the
    /// context's queue is then nested in.
    var isPerformAndWait = false
    /// Why the code runs on `queue`, when another function or a framework tells it:
    /// "`viewDidAppear()` runs on the main queue (a UIKit lifecycle method)".
    var reason: String? = nil
    /// Whether its isolation tells where `Task { }` written here runs: on the main actor
    /// (`@MainActor` code, a view controller's), or off every actor (a nonisolated async
    /// function, an actor's method: a task made there runs off the main queue too).
    var taskInherits = false
}

/// Reads one file once, tracking what names hold and which queue code runs on, and
/// tells every rule what it meets. The rules keep their own state.
final class SemanticWalker: SyntaxVisitor {
    let index: IndexView
    /// The file's name, without folders: facts from other files are cited.
    let fileName: String
    private let rules: [any LintRule]
    // Unchecked exclusivity on the state the walk reads at every node: a walker reads one
    // file on one thread, and no access to these overlaps another (none is held across a
    // call that could reach the same property); the dynamic check cost about as much as
    // the lookups it guarded (2% of a run for the walker and the first pass's collector).
    @exclusivity(unchecked) private var findings: [PendingFinding] = []

    @exclusivity(unchecked) private var scopes: [[String: Binding]] = [[:]]
    @exclusivity(unchecked) private var frames: [Frame] = [Frame(queue: .caller, functionName: "", isActionHandler: false, isDidSaveObserver: false, queueDepth: 0, start: 0)]
    /// The properties of the types being read, innermost last.
    @exclusivity(unchecked) private var typeMembers: [[String: Value]] = []
    /// Every stored and computed property each type being walked declares: a name
    /// declared here and not a context (`var context = RenderContext()`) is not the
    /// same-named context property of another type.
    @exclusivity(unchecked) private var typeMemberNames: [Set<String>] = []
    /// The names of the types being read, innermost last.
    @exclusivity(unchecked) private var typeNames: [String] = []
    /// Parent by child key, from `child.parent = parent`.
    @exclusivity(unchecked) private var parents: [String: ContextRef] = [:]
    /// The context property whose initializer is being read: the context made there
    /// is that property.
    @exclusivity(unchecked) private var contextPropertyBeingInitialized: (name: String, binding: SyntaxIdentifier)?

    init(index: IndexView, rules: [any LintRule], fileName: String = "") {
        self.index = index
        self.fileName = fileName
        self.rules = rules
        super.init(viewMode: .sourceAccurate)
    }

    // MARK: What rules ask

    var frame: Frame { frames[frames.count - 1] }
    /// The innermost type (or extended type) being read.
    var typeName: String? { typeNames.last }
    var queue: ExecutionQueue { frame.queue }

    func report(_ rule: RuleDescription, at node: some SyntaxProtocol, message: String, fix: String) {
        findings.append(
            PendingFinding(ruleID: rule.id, position: node.positionAfterSkippingLeadingTrivia, message: message, fix: fix, frameStart: frame.start))
    }

    /// The facts from other files and functions a finding about `context` here rests
    /// on, as a clause to append to its message ("" when none).
    func citations(for context: ContextRef?, adding fact: String? = nil) -> String {
        let facts = [fact, context?.citation, frame.reason].compactMap { $0 }
        return facts.isEmpty ? "" : ": " + facts.joined(separator: "; ")
    }

    /// Whether code here certainly runs outside `context`'s queue: the queue says so, or
    /// the context was made in this function or closure, so that no caller (and no
    /// unknown API the closure is handed to) can be inside its `perform`.
    func isOutside(_ context: ContextRef) -> Bool {
        switch queue.runs(on: context) {
        case true?: return false
        case false?: return true
        case nil:
            if context.isMadeHere { return queue == .caller || context.madeInFrame == frame.start }
            return isNeverPerformed(context)
        }
    }

    /// A private context property nothing in the project performs on, used in code Core
    /// Data does not call on a context's queue itself (a managed object's own methods,
    /// `willSave` or `awakeFromInsert`, and a fetched results controller's delegate
    /// methods, `controller…`, run there).
    private func isNeverPerformed(_ context: ContextRef) -> Bool {
        guard context.origin == .property, context.queue == .private, !frame.functionName.hasPrefix("controller") else { return false }
        if let type = typeName, index.isManagedObjectClass(type) { return false }
        return index.isNeverPerformed(context.key)
    }

    /// Why code here is outside `context`'s queue when only the project tells: no code
    /// performs on it. Nil otherwise.
    func neverPerformedReason(_ context: ContextRef) -> String? {
        guard queue.runs(on: context) == nil, !context.isMadeHere, isNeverPerformed(context) else { return nil }
        return "no code in the project calls \(context.key).perform { } or performAndWait { }, keeps the context in a local or hands it on, so no caller can be inside it"
    }

    /// The binding a name refers to here: a local, a parameter or a member of the type.
    func lookup(_ name: String) -> Binding? {
        for scope in scopes.reversed() {
            if let binding = scope[name] { return binding }
        }
        return memberValue(name).map(Binding.member)
    }

    /// What an expression holds, when the linter can tell.
    func resolve(_ expression: ExprSyntax) -> Value? {
        guard memoizing else { return resolveAnew(expression) }
        let id = expression.id
        if let known = memoExpressions.firstIndex(of: id) { return memoValues[known] }
        let value = resolveAnew(expression)
        memoExpressions.append(id)
        memoValues.append(value)
        return value
    }

    private func resolveAnew(_ expression: ExprSyntax) -> Value? {
        let expression = Expressions.unwrapped(expression)
        // The node's kind read once, not one typed node made per shape tried.
        switch expression.kind {
        case .sequenceExpr: return resolve(expression.cast(SequenceExprSyntax.self))
        case .declReferenceExpr: return lookup(expression.cast(DeclReferenceExprSyntax.self).baseName.text)?.value
        case .memberAccessExpr: return resolve(expression.cast(MemberAccessExprSyntax.self))
        case .functionCallExpr: return resolve(expression.cast(FunctionCallExprSyntax.self))
        case .subscriptCallExpr: return element(of: resolve(expression.cast(SubscriptCallExprSyntax.self).calledExpression))
        default: return nil
        }
    }

    /// The context an expression holds, when the linter can tell.
    func context(_ expression: ExprSyntax?) -> ContextRef? {
        guard let expression, case .context(let context) = resolve(expression) else { return nil }
        return context
    }

    /// The binding an expression names directly (`entry`, `self.entry`), if any.
    func binding(named expression: ExprSyntax) -> Binding? {
        let expression = Expressions.unwrapped(expression)
        if let reference = expression.as(DeclReferenceExprSyntax.self) { return lookup(reference.baseName.text) }
        if let member = expression.as(MemberAccessExprSyntax.self), Expressions.isSelf(member.base) {
            return memberValue(member.declName.baseName.text).map(Binding.member)
        }
        return nil
    }

    // MARK: Resolving

    /// `x as? [T]`, `x ?? y`, and `(try? x) as? [T] ?? []`: casts bind tighter than `??`.
    private func resolve(_ sequence: SequenceExprSyntax) -> Value? {
        resolve(elements: Array(sequence.elements)[...])
    }

    private func resolve(elements: ArraySlice<ExprSyntax>) -> Value? {
        if let coalescing = elements.firstIndex(where: { $0.as(BinaryOperatorExprSyntax.self)?.operator.text == "??" }) {
            return resolve(operands: elements[..<coalescing]) ?? resolve(operands: elements[(coalescing + 1)...])
        }
        return resolve(operands: elements[...])
    }

    private func resolve(operands: ArraySlice<ExprSyntax>) -> Value? {
        guard let first = operands.first else { return nil }
        if operands.count == 1 { return resolve(first) }
        let rest = Array(operands.dropFirst())
        guard rest.count == 2, rest[0].is(UnresolvedAsExprSyntax.self), let type = rest[1].as(TypeExprSyntax.self) else { return nil }
        return cast(resolve(first), to: type.type)
    }

    private func resolve(_ member: MemberAccessExprSyntax) -> Value? {
        let name = member.declName.baseName.text
        if name == "viewContext" {
            return .context(ContextRef.property("viewContext", queue: .main))
        }
        guard let base = member.base else { return nil }
        if Expressions.isSelf(base) { return memberValue(name) }
        let baseValue = resolve(base)
        if name == "parent", case .context(let child) = baseValue { return parents[child.key].map(Value.context) }
        if case .managedObject(let object) = baseValue {
            if name == "objectID", !object.isCollection {
                return .objectID(object)
            }
            if object.isCollection, CoreDataAPI.elementMethods.contains(name) { return element(of: baseValue) }
            return nil
        }
        if baseValue == nil, let fact = index.contextProperty(named: name) {
            var context = ContextRef.indexed(name, fact, currentFile: fileName)
            if let owner = base.as(DeclReferenceExprSyntax.self)?.baseName.text, lookup(owner)?.isParameter == true {
                context.owner = .parameter(owner)
                context.name = "\(owner).\(name)"
            }
            if fact.makesNew {
                // `stack.savingContext`, a getter that makes a new context: each read is
                // a context of its own, made here.
                context.key = "made@\(member.position.utf8Offset)"
                context.name = Expressions.text(member)
                context.origin = .local
            }
            return .context(context)
        }
        return nil
    }

    /// `stack.newTaskContext()`, `makeContext(concurrencyType: .privateQueueConcurrencyType)`:
    /// a function the index knows returns a context; the arguments tell the queue when
    /// its body does not.
    private func resolveContextFunction(_ name: String, _ call: FunctionCallExprSyntax) -> Value? {
        guard let fact = index.contextFunction(named: name) else { return nil }
        var context = ContextRef.indexed(name, fact, currentFile: fileName)
        if context.queue == .unknown, case .queue(let queue) = FactCollector.evidence(of: Syntax(call.arguments)) {
            context.queue = queue
            context.citation = nil
        }
        guard fact.makesNew else {
            context.key = "function:\(name)"
            return .context(context)
        }
        context.key = "made@\(call.position.utf8Offset)"
        context.name = Expressions.text(call)
        context.origin = .local
        return .context(context)
    }

    private func resolve(_ call: FunctionCallExprSyntax) -> Value? {
        let callee = call.calledExpression
        if let member = callee.as(MemberAccessExprSyntax.self) {
            return resolveMethodCall(member, call)
        }
        if let reference = callee.as(DeclReferenceExprSyntax.self) {
            let name = reference.baseName.text
            if name == CoreDataAPI.contextType {
                return .context(.made(by: call, queue: concurrencyType(of: call)))
            }
            if index.isManagedObjectClass(name), let owner = Expressions.argument("context", of: call) {
                return .managedObject(ManagedObjectInfo(owner: context(owner), isInsertedHere: true))
            }
            if name == "NSFetchRequest" {
                return .fetchRequest(FetchRequestInfo(entity: nil))
            }
            if name == "DispatchQueue", let label = Expressions.argument("label", of: call) {
                return .dispatchQueue(Expressions.text(label))
            }
            if name == "OperationQueue", ClosurePlacement.isNewOperationQueue(call) {
                return .operationQueue(Expressions.text(call))
            }
            if name == "URLSession" { return Self.session(made: call) }
            if name == "NSFetchedResultsController" { return fetchedResultsController(call) }
            if let factory = index.requestFactory(named: name), call.arguments.isEmpty {
                return .fetchRequest(factory.request)
            }
            if let objects = returnedObjects(call) { return objects }
            return resolveContextFunction(name, call)
        }
        if let generic = callee.as(GenericSpecializationExprSyntax.self), Expressions.lastName(generic.expression) == "NSFetchedResultsController" {
            return fetchedResultsController(call)
        }
        if let generic = callee.as(GenericSpecializationExprSyntax.self),
            Expressions.lastName(generic.expression) == "NSFetchRequest"
        {
            let entity = TypeNames.genericArgument(in: generic.genericArgumentClause)
            return .fetchRequest(FetchRequestInfo(entity: entity, yieldsObjects: !CoreDataAPI.nonObjectResults.contains(entity ?? "")))
        }
        return nil
    }

    private func resolveMethodCall(_ member: MemberAccessExprSyntax, _ call: FunctionCallExprSyntax) -> Value? {
        let name = member.declName.baseName.text
        switch name {
        case "newBackgroundContext":
            return .context(.made(by: call, queue: .private))
        case "insertNewObject":
            guard let owner = Expressions.argument("into", of: call) else { return nil }
            return .managedObject(ManagedObjectInfo(owner: context(owner), isInsertedHere: true))
        case "fetchRequest":
            // `Entity.fetchRequest()`, as Xcode generates it for every entity.
            guard let base = member.base?.as(DeclReferenceExprSyntax.self), base.baseName.text.first?.isUppercase == true else { return nil }
            return .fetchRequest(FetchRequestInfo(entity: base.baseName.text))
        case "init":
            // `self.init(context: context)` in a managed object class's convenience
            // initializer inserts the new object into that context, as `Entity(context:)` does.
            guard Expressions.isSelf(member.base), let type = typeNames.last, index.isManagedObjectClass(type),
                let owner = Expressions.argument("context", of: call)
            else { return nil }
            return .managedObject(ManagedObjectInfo(owner: context(owner), isInsertedHere: true))
        default:
            break
        }
        guard let base = member.base else { return nil }
        if Expressions.isSelf(base), call.arguments.isEmpty, let factory = index.requestFactory(named: name) {
            return .fetchRequest(factory.request)
        }
        let baseValue = resolve(base)
        if baseValue == nil, let objects = returnedObjects(call) { return objects }
        if baseValue == nil, let context = resolveContextFunction(name, call) { return context }
        switch baseValue {
        case .context(let owner):
            switch name {
            case "fetch":
                if let request = call.arguments.first?.expression, case .fetchRequest(let info) = resolve(request), !info.yieldsObjects {
                    return nil
                }
                return .managedObject(ManagedObjectInfo(owner: owner, isCollection: true))
            case "object", "existingObject", "registeredObject":
                return .managedObject(ManagedObjectInfo(owner: owner))
            default:
                return nil
            }
        case .managedObject(let object) where object.isCollection:
            if CoreDataAPI.elementMethods.contains(name) { return element(of: baseValue) }
            if CoreDataAPI.subsequenceMethods.contains(name) { return baseValue }
            return nil
        default:
            return nil
        }
    }

    /// `URLSession(configuration:)` or `URLSession(configuration:delegate:delegateQueue:)`:
    /// its completion handlers run on its delegate queue, a serial queue of its own unless
    /// `delegateQueue` names another (`.main`).
    private static func session(made call: FunctionCallExprSyntax) -> Value? {
        guard Expressions.argument("configuration", of: call) != nil else { return nil }
        let own = ExecutionQueue.background("a URLSession completion handler (the session's delegate queue)")
        guard let queue = Expressions.argument("delegateQueue", of: call).map(Expressions.unwrapped) else { return .urlSession(own) }
        if queue.is(NilLiteralExprSyntax.self) { return .urlSession(own) }
        if ClosurePlacement.isMainQueue(queue) { return .urlSession(.main) }
        if let made = queue.as(FunctionCallExprSyntax.self), ClosurePlacement.isNewOperationQueue(made) { return .urlSession(own) }
        return nil
    }

    /// `NSFetchedResultsController(fetchRequest: …, managedObjectContext: context, …)`.
    private func fetchedResultsController(_ call: FunctionCallExprSyntax) -> Value? {
        context(Expressions.argument("managedObjectContext", of: call)).map(Value.fetchedResultsController)
    }

    /// A fetched results controller property's initializer, `{ …; return
    /// NSFetchedResultsController(…) }()` or the call itself: the controller it makes.
    private func fetchedResultsController(initializedBy value: ExprSyntax) -> Value? {
        let calls = value.tokens(viewMode: .sourceAccurate).filter { $0.text == "NSFetchedResultsController" }.compactMap { token -> FunctionCallExprSyntax? in
            guard let reference = token.parent?.as(DeclReferenceExprSyntax.self) else { return nil }
            let callee = reference.parent?.as(GenericSpecializationExprSyntax.self).map(Syntax.init) ?? Syntax(reference)
            guard let call = callee.parent?.as(FunctionCallExprSyntax.self), call.calledExpression.id == callee.id else { return nil }
            return call
        }
        // One controller made, over a context told here.
        guard calls.count == 1, let call = calls.first else { return nil }
        return fetchedResultsController(call)
    }

    /// `Note.recent(in: context)`: a project function that returns objects of the context
    /// it is handed (it fetches from it): they belong to that context.
    private func returnedObjects(_ call: FunctionCallExprSyntax) -> Value? {
        if let returned = index.propertyObjectReturn(of: call), index.isManagedObjectClass(returned.returned.type) {
            let owner = ContextRef.indexed(returned.returned.context, returned.fact, currentFile: fileName)
            return .managedObject(ManagedObjectInfo(owner: owner, isCollection: returned.returned.isCollection))
        }
        guard let (returned, argument) = index.objectReturn(of: call),
            returned.type == CoreDataAPI.managedObjectType || index.isManagedObjectClass(returned.type)
        else { return nil }
        return .managedObject(ManagedObjectInfo(owner: context(argument), isCollection: returned.isCollection))
    }

    private func element(of value: Value?) -> Value? {
        guard case .managedObject(var object) = value, object.isCollection else { return nil }
        object.isCollection = false
        return .managedObject(object)
    }

    private func cast(_ value: Value?, to type: TypeSyntax) -> Value? {
        // `as? [T]` on the result of a fetch keeps the objects and their owner, whether
        // or not `T` is declared in the scanned files (Xcode may generate it).
        if case .managedObject(var object) = value, object.owner != nil {
            object.isCollection = TypeNames.element(of: type) != nil
            return .managedObject(object)
        }
        if let element = TypeNames.element(of: type) {
            guard index.isManagedObjectClass(element) else { return nil }
            if case .managedObject(var object) = value {
                object.isCollection = true
                return .managedObject(object)
            }
            return .managedObject(ManagedObjectInfo(isCollection: true))
        }
        guard let name = TypeNames.base(of: type), index.isManagedObjectClass(name) else { return nil }
        if case .managedObject(let object) = value, !object.isCollection { return value }
        return .managedObject(ManagedObjectInfo())
    }

    private func concurrencyType(of call: FunctionCallExprSyntax) -> ContextQueue {
        guard let type = Expressions.argument("concurrencyType", of: call).flatMap(Expressions.lastName) else { return .unknown }
        return CoreDataAPI.queue(named: type) ?? .unknown
    }

    /// What a declared type says a name holds.
    private func declaredValue(_ type: TypeSyntax, key: String, name: String, origin: ContextOrigin) -> Value? {
        if let element = TypeNames.element(of: type) {
            return index.isManagedObjectClass(element) ? .managedObject(ManagedObjectInfo(isCollection: true)) : nil
        }
        guard let base = TypeNames.base(of: type) else { return nil }
        if base == CoreDataAPI.contextType {
            if origin == .property, let fact = index.contextProperty(name, in: typeNames.last) {
                return .context(ContextRef.indexed(name, fact, currentFile: fileName))
            }
            return .context(ContextRef(key: key, name: name, queue: .unknown, origin: origin))
        }
        if index.isManagedObjectClass(base) { return .managedObject(ManagedObjectInfo()) }
        return nil
    }

    private func memberValue(_ name: String) -> Value? {
        ownedBySelf(memberValueOfType(name))
    }

    private func memberValueOfType(_ name: String) -> Value? {
        if let value = typeMembers.last?[name] { return value }
        if typeMemberNames.last?.contains(name) == true { return nil }
        if let fact = index.contextProperty(name, in: typeNames.last) { return .context(ContextRef.indexed(name, fact, currentFile: fileName)) }
        return nil
    }

    /// A context property of the type being read is `self`'s.
    private func ownedBySelf(_ value: Value?) -> Value? {
        guard case .context(var context) = value, context.origin == .property, !typeNames.isEmpty else { return value }
        context.owner = .selfInstance
        return .context(context)
    }

    // MARK: Binding names

    private func bind(_ name: String, _ value: Value?, at node: some SyntaxProtocol, isParameter: Bool = false) {
        var value = value
        if case .context(var context) = value, context.isUnnamed {
            if let property = contextPropertyBeingInitialized?.name {
                context.name = property
                context.key = property
                context.origin = .property
            } else {
                context.name = name
                context.key = "local:\(name)@\(node.position.utf8Offset)"
                context.madeInFrame = frame.start
            }
            value = .context(context)
        } else if case .context(var context) = value, context.key.hasPrefix("function:"), context.name != name {
            // `let context = db.makeContext(…)`: the code calls it `context`, and so do the
            // messages and their fixes (`makeContext.perform { }` is no code).
            context.name = name
            value = .context(context)
        }
        scopes[scopes.count - 1][name] = Binding(value: value, queueDepth: frame.queueDepth, isParameter: isParameter)
    }

    /// Changes what an existing local holds (`results = try context.fetch(request)`).
    private func rebind(_ name: String, _ value: Value?) {
        for index in scopes.indices.reversed() where scopes[index][name] != nil {
            scopes[index][name]?.value = value
            return
        }
    }

    private func pushScope() { scopes.append([:]) }
    private func popScope() { scopes.removeLast() }

    // MARK: Types

    private func enterType(_ name: String, _ members: MemberBlockSyntax) {
        typeNames.append(name)
        var table: [String: Value] = [:]
        var names: Set<String> = []
        for item in members.members {
            guard let variable = item.decl.as(VariableDeclSyntax.self) else { continue }
            for binding in variable.bindings {
                guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { continue }
                names.insert(name)
                if let row = index.apiTable.objectWrapper(of: variable) {
                    // `@FetchRequest var notes: FetchedResults<Note>`: the table says whose objects.
                    let wrapper = "@" + row.name.drop { $0 == "@" }
                    let owner = ContextRef.property(
                        row.queue == .main ? "viewContext" : wrapper, queue: row.queue,
                        citation: "`\(wrapper)` (\(row.source)) gives objects of \(row.queue.article) context")
                    table[name] = .managedObject(ManagedObjectInfo(owner: row.queue == .unknown ? nil : owner, isCollection: true))
                } else if variable.bindingSpecifier.tokenKind == .keyword(.let), let value = binding.initializer?.value, let queue = resolveOwnQueue(value) {
                    table[name] = queue
                } else if let type = binding.typeAnnotation?.type {
                    if let value = declaredValue(type, key: name, name: name, origin: .property) {
                        table[name] = value
                    } else if TypeNames.base(of: type) == "NSFetchedResultsController", let initial = binding.initializer?.value,
                        let controller = fetchedResultsController(initializedBy: initial)
                    {
                        table[name] = controller
                    }
                } else if let fact = index.contextProperty(name, in: typeNames.last), mayHoldContext(binding.initializer?.value) {
                    table[name] = .context(ContextRef.indexed(name, fact, currentFile: fileName))
                }
            }
        }
        typeMembers.append(table)
        typeMemberNames.append(names)
        pushScope()
        refineMemberObjects(members)
    }

    /// `DispatchQueue(label: "import")`, `OperationQueue()`, `URLSession(configuration: …)`:
    /// the whole initializer of a property.
    private func resolveOwnQueue(_ value: ExprSyntax) -> Value? {
        guard let call = value.as(FunctionCallExprSyntax.self),
            let type = call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text,
            type == "DispatchQueue" || type == "OperationQueue" || type == "URLSession"
        else { return nil }
        return resolve(call)
    }

    /// Whether a property with no declared type, set up with `value`, may hold a
    /// context: `newBackgroundContext()`, `viewContext`, another context property or
    /// function; not `RenderContext()`.
    private func mayHoldContext(_ value: ExprSyntax?) -> Bool {
        guard let value else { return true }
        switch FactCollector.evidence(of: Syntax(value)) {
        case .queue: return true
        case .name(let other): return index.contextProperty(named: other) != nil || index.contextFunction(named: other) != nil
        case .unknown: return false
        }
    }

    /// `lazy var note: Note? = { Note(context: managedObjectContext) }()`: a member
    /// object whose initializer tells its context.
    private func refineMemberObjects(_ members: MemberBlockSyntax) {
        for item in members.members {
            guard let variable = item.decl.as(VariableDeclSyntax.self) else { continue }
            for binding in variable.bindings {
                guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
                    case .managedObject(let declared)? = typeMembers[typeMembers.count - 1][name], declared.owner == nil,
                    let value = binding.initializer?.value, let made = Self.singleExpression(value),
                    case .managedObject(var object)? = resolve(made), object.owner != nil
                else { continue }
                object.isCollection = declared.isCollection
                object.isInsertedHere = false
                typeMembers[typeMembers.count - 1][name] = .managedObject(object)
            }
        }
    }

    /// The expression `{ expression }()` or `{ return expression }()` computes, or the
    /// expression itself.
    private static func singleExpression(_ value: ExprSyntax) -> ExprSyntax? {
        guard let call = value.as(FunctionCallExprSyntax.self), let closure = call.calledExpression.as(ClosureExprSyntax.self) else { return value }
        guard closure.statements.count == 1, let item = closure.statements.first?.item else { return nil }
        return item.as(ReturnStmtSyntax.self)?.expression ?? item.as(ExprSyntax.self)
    }

    private func leaveType() {
        typeMembers.removeLast()
        typeMemberNames.removeLast()
        typeNames.removeLast()
        popScope()
    }

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind { enterType(node.name.text, node.memberBlock); return .visitChildren }
    override func visitPost(_ node: ClassDeclSyntax) { leaveType() }
    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind { enterType(node.name.text, node.memberBlock); return .visitChildren }
    override func visitPost(_ node: StructDeclSyntax) { leaveType() }
    override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind { enterType(node.name.text, node.memberBlock); return .visitChildren }
    override func visitPost(_ node: ActorDeclSyntax) { leaveType() }
    override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
        enterType(TypeNames.base(of: node.extendedType) ?? node.extendedType.trimmedDescription, node.memberBlock)
        return .visitChildren
    }
    override func visitPost(_ node: ExtensionDeclSyntax) { leaveType() }

    // MARK: Functions

    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
        let name = node.name.text
        let isIBAction = Attributes.has("IBAction", in: node.attributes)
        let isAction = isIBAction || name.lowercased().hasPrefix("export")
        let observes = index.isDidSaveSelector(name)
        var function = Frame(
            queue: observes ? .postingThread : .caller, functionName: "\(name)()", isActionHandler: isAction,
            isDidSaveObserver: observes, queueDepth: frame.queueDepth + 1, start: node.position.utf8Offset)
        // Asked once: where the function runs and its parameters' objects both need it.
        let key = functionKey(node)
        if !observes { placeFunction(&function, node, key: key, isIBAction: isIBAction) }
        enterFunction(function, parameters: node.signature.parameterClause.parameters, function: key)
        return .visitChildren
    }

    /// Where a method runs, when a framework, Swift concurrency or every call site in
    /// the project tells.
    private func placeFunction(_ function: inout Frame, _ node: FunctionDeclSyntax, key: String, isIBAction: Bool) {
        let type = typeNames.last
        let name = node.name.text
        let isAsync = node.signature.effectSpecifiers?.asyncSpecifier != nil
        let isMainActor = Attributes.has("MainActor", in: node.attributes) || index.isMainActor(type)
        let framework: String?
        if isIBAction {
            framework = "an @IBAction"
        } else if isMainActor {
            framework = "@MainActor"
        } else {
            framework = index.entryReason(
                name: name, firstLabel: node.signature.parameterClause.parameters.first?.firstName.text, type: type, isAsync: isAsync)
        }
        if let framework {
            function.queue = .main
            function.reason = "`\(name)()` runs on the main queue (\(framework))"
            // XCTest calls its test methods on the main thread without isolating them:
            // a Task made there runs on the global executor.
            function.taskInherits = !framework.hasPrefix("an XCTest")
            return
        }
        // A local function runs where the function around it does.
        guard frames.count == 1 else { return }
        let modifiers = node.modifiers.map(\.name.text)
        // `nonisolated(nonsending)`, or an `isolated` parameter (`isolation: isolated
        // (any Actor)? = #isolation`): the function runs on its caller's actor.
        let runsOnCallersActor = FactCollector.runsOnCallersActor(node)
        // `@concurrent` runs an async function on the global executor, whatever the
        // project's default isolation.
        if isAsync, Attributes.has("concurrent", in: node.attributes) {
            function.queue = .background("Swift's global executor")
            function.reason = "`\(name)()` is @concurrent, which Swift runs on its global executor, not on the main queue nor on a context's queue"
            function.taskInherits = true
            return
        }
        let isStatic = modifiers.contains("static") || modifiers.contains("class"), isNonisolated = modifiers.contains("nonisolated")
        let isTest = Attributes.has("Test", in: node.attributes)
        // Most functions are neither async nor tests: then only an actor places them, a
        // question asked once per type.
        let mayBePlaced = isAsync || isTest || (!isStatic && !isNonisolated && index.isActor(type))
        if mayBePlaced, let placement = index.concurrencyPlacement(
            name, type: type, isAsync: isAsync && !runsOnCallersActor, isNonisolated: isNonisolated, isStatic: isStatic, isTest: isTest)
        {
            switch placement {
            case .actor(let actor):
                function.queue = .background("the executor of the actor '\(actor)'")
                function.reason = "`\(name)()` is a method of the actor '\(actor)', which runs on the actor's executor, not on a context's queue"
            case .nonisolatedAsync:
                function.queue = .background("Swift's global executor")
                function.reason = "`\(name)()` is a nonisolated async function, which Swift runs on its global executor, not on the main queue nor on a context's queue"
            case .swiftTestingTest:
                function.queue = .background("a Swift Testing thread")
                function.reason = "`\(name)()` is a Swift Testing test not marked @MainActor, which Swift Testing runs off the main thread"
            case .asyncXCTest:
                function.queue = .background("an XCTest async test's thread")
                function.reason = "`\(name)()` is an async XCTest test method not marked @MainActor, which XCTest runs off the main thread"
            }
            function.taskInherits = true
            return
        }
        if name == "urlSession", let session = index.sessionDelegateQueue(type) {
            switch session {
            case .main:
                function.queue = .main
                function.reason = "`\(name)()` is a URLSession delegate method of a session made with delegateQueue: .main"
            case .background:
                function.queue = .background("the URLSession's delegate queue")
                function.reason = "`\(name)()` is a URLSession delegate method, which runs on the session's own delegate queue (its delegateQueue is nil or a new OperationQueue)"
            case .unknown:
                break
            }
            return
        }
        if node.signature.parameterClause.parameters.first.flatMap({ TypeNames.base(of: $0.type) }) == "WCSession", !isStatic,
            index.isWatchSessionDelegate(type)
        {
            // Apple's WCSession.h, above WCSessionDelegate: "All delegate methods will be
            // called on the same queue. The delegate queue is a non-main serial queue."
            function.queue = .background("WatchConnectivity's delegate queue")
            function.reason = "`\(name)()` is a WCSessionDelegate method, which WCSession calls on its delegate queue, a non-main serial queue (WCSession.h)"
            return
        }
        guard let inferred = index.functionQueue(of: key) else { return }
        switch inferred.queue {
        case .main where inferred.onSomePaths:
            function.queue = .main
            function.reason = "`\(name)()` runs on the main queue \(inferred.reason)"
        case .main:
            function.queue = .main
            function.reason = "`\(name)()` runs on the main queue (\(inferred.reason))"
        case .context(let property):
            guard let fact = index.contextProperty(named: property) else { return }
            let context = ContextRef.indexed(property, fact, currentFile: fileName)
            function.queue = .context(context)
            function.reason = "`\(name)()` runs on \(property)'s queue (\(inferred.reason))"
        case .otherInstanceContext(let property, let andWait):
            guard let fact = index.contextProperty(named: property), fact.queue == .private else { return }
            var context = ContextRef.indexed(property, fact, currentFile: fileName)
            context.owner = .parameter("another instance")
            context.name = "another instance's \(property)"
            function.queue = .context(context)
            // performAndWait runs its block on the caller's thread: a main-queue context
            // there is not judged.
            function.isPerformAndWait = andWait
            function.reason = "`\(name)()` runs on the queue of another instance's \(property), not its own (\(inferred.reason))"
        case .privateContext(let queueName):
            function.queue = .privateContextQueue(queueName)
            function.reason = "`\(name)()` runs on \(queueName) (\(inferred.reason))"
        case .background:
            function.queue = .background("a background queue")
            function.reason = "`\(name)()` runs on a background queue, off the main queue and every context's (\(inferred.reason))"
        case .concurrencyExecutor:
            function.queue = .background("a Swift concurrency executor")
            function.reason = "`\(name)()` runs on a Swift concurrency executor, off the main queue and every context's (\(inferred.reason))"
        }
    }

    /// The name the index is asked about a function by: its full name
    /// (`getDefaultPrinter(context:)`), which the index reads as the name alone when the
    /// name is not overloaded. Not asking whether it is keeps a file's first-pass answers
    /// in line with the project's where an overload in another file changes no answer
    /// (the file is then not parsed again).
    private func functionKey(_ node: FunctionDeclSyntax) -> String {
        ParameterLabels(node.signature.parameterClause.parameters).fullName(node.name.text)
    }

    override func visitPost(_ node: FunctionDeclSyntax) { leaveFunction() }

    override func visit(_ node: InitializerDeclSyntax) -> SyntaxVisitorContinueKind {
        enterFunction(
            Frame(queue: .caller, functionName: "init()", isActionHandler: false, isDidSaveObserver: false, queueDepth: frame.queueDepth + 1, start: node.position.utf8Offset),
            parameters: node.signature.parameterClause.parameters)
        return .visitChildren
    }

    override func visitPost(_ node: InitializerDeclSyntax) { leaveFunction() }

    private func enterFunction(_ frame: Frame, parameters: FunctionParameterListSyntax, function: String? = nil) {
        frames.append(frame)
        pushScope()
        // Objects every call site hands from one context (a local function's are not),
        // asked of the index at the first object parameter: most functions have none.
        var handed: [ParameterObjects]?
        for parameter in parameters {
            let name = (parameter.secondName ?? parameter.firstName).text
            var value = declaredValue(parameter.type, key: "parameter:\(name)@\(parameter.position.utf8Offset)", name: name, origin: .parameter)
            if case .managedObject = value, handed == nil {
                handed = function != nil && frames.count == 2 ? index.parameterObjects(of: function!) : []
            }
            if case .managedObject(var object) = value, let objects = handed?.first(where: { $0.parameter == name }) {
                object.owner = ContextRef.property(objects.context, queue: objects.fact.queue, citation: "every call of `\(function!.prefix { $0 != "(" })()` hands `\(name)` objects fetched from \(objects.context), as at \(objects.place.described)")
                value = .managedObject(object)
            }
            bind(name, value, at: parameter, isParameter: true)
        }
        for rule in rules { rule.enterFunction(self) }
    }

    private func leaveFunction() {
        for rule in rules { rule.leaveFunction(self) }
        popScope()
        frames.removeLast()
    }

    // MARK: Closures

    override func visit(_ node: ClosureExprSyntax) -> SyntaxVisitorContinueKind {
        let captures = captureValues(node)
        let placement = ClosurePlacement(node, walker: self)
        // The capture list's names are bound where the closure is made (their values,
        // their queue depth), in the closure's own scope: they hide the names outside,
        // a type's property of the same name too.
        pushScope()
        for capture in captures {
            if let outer = capture.outer { scopes[scopes.count - 1][capture.name] = outer } else { bind(capture.name, capture.value, at: capture.node) }
        }
        frames.append(placement.frame)
        let parameters = ClosurePlacement.parameters(of: node)
        for (offset, parameter) in parameters.enumerated() {
            bind(parameter.text, offset == 0 ? placement.firstParameter : nil, at: parameter)
        }
        if parameters.isEmpty, let first = placement.firstParameter {
            bind("$0", first, at: node)
        }
        return .visitChildren
    }

    override func visitPost(_ node: ClosureExprSyntax) {
        popScope()
        frames.removeLast()
    }

    /// `[context = backgroundContext]`, `[weak store]`, `[entries]`: what each name of a
    /// closure's capture list holds. An initializer is evaluated where the closure is
    /// made, so the rules see it there, in the code around the closure; a name captured
    /// as it is holds what it holds outside. `self` is read as `self` anyway.
    private func captureValues(_ closure: ClosureExprSyntax) -> [Capture] {
        guard let items = closure.signature?.capture?.items, !items.isEmpty else { return [] }
        var captures: [Capture] = []
        for item in items where item.name.text != "self" {
            if let value = item.initializer?.value {
                walk(value)
                captures.append(Capture(name: item.name.text, value: resolve(value), node: item))
            } else {
                // The binding outside as it is: its queue depth tells what crosses.
                captures.append(Capture(name: item.name.text, outer: lookup(item.name.text) ?? Binding(value: nil, queueDepth: frame.queueDepth), node: item))
            }
        }
        return captures
    }

    private struct Capture {
        var name: String
        var value: Value? = nil
        var outer: Binding? = nil
        var node: ClosureCaptureSyntax
    }

    /// The capture list was read with the code around the closure (`captureValues`).
    override func visit(_ node: ClosureCaptureClauseSyntax) -> SyntaxVisitorContinueKind { .skipChildren }

    // MARK: Scopes and bindings

    override func visit(_ node: CodeBlockSyntax) -> SyntaxVisitorContinueKind { pushScope(); return .visitChildren }
    override func visitPost(_ node: CodeBlockSyntax) { popScope() }

    override func visit(_ node: ForStmtSyntax) -> SyntaxVisitorContinueKind {
        pushScope()
        if let name = node.pattern.as(IdentifierPatternSyntax.self)?.identifier.text {
            bind(name, element(of: resolve(node.sequence)), at: node.pattern)
        }
        return .visitChildren
    }

    override func visitPost(_ node: ForStmtSyntax) { popScope() }

    override func visit(_ node: PatternBindingSyntax) -> SyntaxVisitorContinueKind {
        guard Self.isProperty(node) else { return .visitChildren }
        if let name = node.pattern.as(IdentifierPatternSyntax.self)?.identifier.text, index.contextProperty(named: name) != nil {
            contextPropertyBeingInitialized = (name, node.id)
        }
        enterProperty(node)
        return .visitChildren
    }

    /// A lazy or computed property of a view controller or a SwiftUI view runs on the
    /// main queue, as the rest of the type's code does; any other property's code runs
    /// where it is read.
    private func enterProperty(_ node: PatternBindingSyntax) {
        var property = Frame(
            queue: .caller, functionName: Expressions.text(node.pattern), isActionHandler: false, isDidSaveObserver: false,
            queueDepth: frame.queueDepth + 1, start: node.position.utf8Offset)
        let isLazy = node.parent?.parent?.as(VariableDeclSyntax.self)?.modifiers.contains { $0.name.text == "lazy" } ?? false
        let type = typeNames.last
        if isLazy || node.accessorBlock != nil {
            let why: String? =
                index.isViewController(type) ? "a property of the view controller '\(type ?? "")', read by its main-queue code"
                : index.isSwiftUIView(type) ? "a property of the SwiftUI view '\(type ?? "")', read by its body"
                : index.isMainActor(type) ? "a property of the @MainActor type '\(type ?? "")'" : nil
            if let why {
                property.queue = .main
                property.reason = "`\(property.functionName)` runs on the main queue (\(why))"
            }
        }
        frames.append(property)
        pushScope()
    }

    override func visitPost(_ node: PatternBindingSyntax) {
        if contextPropertyBeingInitialized?.binding == node.id { contextPropertyBeingInitialized = nil }
        if Self.isProperty(node) {
            popScope()
            frames.removeLast()
        }
        // Properties are read when their type is entered.
        guard !Self.isProperty(node), let name = node.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { return }
        var value = node.initializer.flatMap { resolve($0.value) }
        if let type = node.typeAnnotation?.type {
            if case .fetchRequest(var request) = value, let result = TypeNames.genericArgument(of: type) {
                request.yieldsObjects = !CoreDataAPI.nonObjectResults.contains(result)
                value = .fetchRequest(request)
            } else if value == nil {
                value = declaredValue(type, key: "local:\(name)@\(node.position.utf8Offset)", name: name, origin: .local)
            }
        }
        bind(name, value, at: node)
    }

    override func visitPost(_ node: OptionalBindingConditionSyntax) {
        guard let name = node.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { return }
        let value = node.initializer.map { resolve($0.value) } ?? lookup(name)?.value
        bind(name, value, at: node)
    }

    /// `name = value`, `request.fetchBatchSize = n`, `child.parent = context`.
    override func visitPost(_ node: SequenceExprSyntax) {
        let elements = Array(node.elements)
        guard elements.count >= 3, elements[1].is(AssignmentExprSyntax.self) else { return }
        if elements.count > 3 {
            // `tasks = (try? context.fetch(request)) ?? []`: the value is the rest.
            if let reference = elements[0].as(DeclReferenceExprSyntax.self) { rebind(reference.baseName.text, resolve(elements: elements[2...])) }
            return
        }
        let target = elements[0], value = elements[2]
        if let member = target.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "parent",
            let child = context(member.base), let parent = context(value)
        {
            parents[child.key] = parent
        }
        if let reference = target.as(DeclReferenceExprSyntax.self) {
            rebind(reference.baseName.text, resolve(value))
        } else if let member = target.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "underlyingQueue",
            let base = member.base?.as(DeclReferenceExprSyntax.self), case .operationQueue = lookup(base.baseName.text)?.value
        {
            // Its operations now run on that dispatch queue, which may be the main one.
            rebind(base.baseName.text, nil)
        } else if let member = target.as(MemberAccessExprSyntax.self), let base = member.base?.as(DeclReferenceExprSyntax.self),
            case .fetchRequest(var request) = lookup(base.baseName.text)?.value
        {
            switch member.declName.baseName.text {
            case "fetchLimit": request.hasLimit = true
            case "fetchBatchSize": request.hasBatchSize = true
            case "predicate": request.hasPredicate = true
            case "resultType": request.yieldsObjects = false
            default: return
            }
            rebind(base.baseName.text, .fetchRequest(request))
        }
        for rule in rules { rule.assignment(target, value, self) }
    }

    // MARK: What rules watch

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        memoizing = true
        for rule in rules { rule.call(node, self) }
        endMemo()
        return .visitChildren
    }

    override func visit(_ node: MemberAccessExprSyntax) -> SyntaxVisitorContinueKind {
        if Expressions.isSelf(node.base), let binding = binding(named: ExprSyntax(node)) {
            for rule in rules { rule.reference(ExprSyntax(node), name: node.declName.baseName.text, binding, self) }
        }
        memoizing = true
        for rule in rules { rule.memberAccess(node, self) }
        endMemo()
        return .visitChildren
    }

    /// While the rules look at one call or member access, nothing the walker tracks
    /// changes: an expression several rules resolve (the receiver of `context.save()`,
    /// asked by five of them) is resolved once, and kept here until the rules are done.
    @exclusivity(unchecked) private var memoizing = false
    /// Apart, so that looking an expression up copies no value.
    @exclusivity(unchecked) private var memoExpressions: [SyntaxIdentifier] = []
    @exclusivity(unchecked) private var memoValues: [Value?] = []

    private func endMemo() {
        memoizing = false
        // Most accesses resolve nothing: nothing to empty.
        guard !memoExpressions.isEmpty else { return }
        memoExpressions.removeAll(keepingCapacity: true)
        memoValues.removeAll(keepingCapacity: true)
    }

    override func visit(_ node: DeclReferenceExprSyntax) -> SyntaxVisitorContinueKind {
        if let member = node.parent?.as(MemberAccessExprSyntax.self), member.declName.id == node.id { return .skipChildren }
        let name = node.baseName.text
        guard let binding = lookup(name), binding.value != nil, !Self.isAssignmentTarget(node) else { return .skipChildren }
        for rule in rules { rule.reference(ExprSyntax(node), name: name, binding, self) }
        return .skipChildren
    }

    /// `var name = …` in a type's body (not in a function).
    private static func isProperty(_ binding: PatternBindingSyntax) -> Bool {
        binding.parent?.parent?.parent?.is(MemberBlockItemSyntax.self) == true
    }

    /// `node = ...`: a name being set, not used.
    private static func isAssignmentTarget(_ node: DeclReferenceExprSyntax) -> Bool {
        guard let sequence = node.parent?.parent?.as(SequenceExprSyntax.self) else { return false }
        let elements = Array(sequence.elements)
        return elements.count == 3 && elements[0].id == node.id && elements[1].is(AssignmentExprSyntax.self)
    }

    /// Runs every rule over the file and returns what they found.
    func run(_ tree: SourceFileSyntax) -> [PendingFinding] {
        walk(tree)
        for rule in rules { rule.finish(self) }
        return findings
    }
}

/// A finding before its line and column are computed (only files with findings pay
/// for a location converter).
struct PendingFinding {
    var ruleID: String
    var position: AbsolutePosition
    var message: String
    var fix: String
    /// The function or closure it was found in.
    var frameStart: Int
}

/// One finding per bug: the rules that judge where code runs may each see the same
/// wrong access (`entries.forEach { $0.title }` in `DispatchQueue.main.async`: objects
/// across queues, and a use of their private context outside its perform). On one line
/// of one function or closure, the most specific rule's finding stays, and its message
/// names the other rules. Rules that find another kind of bug on the same line
/// (`child-save-not-propagated`: the save never reaches the store) keep their own.
enum OneFindingPerBug {
    /// Most specific first.
    static let queueRules = ["merge-off-queue", "object-across-queues", "main-context-off-main-queue", "context-without-perform"]

    /// `findings` with their lines, in order; the same, with each bug reported once.
    static func merge(_ findings: [(PendingFinding, line: Int)]) -> [(PendingFinding, line: Int)] {
        guard findings.count > 1 else { return findings }
        var groups: [String: [Int]] = [:]
        for (offset, (finding, line)) in findings.enumerated() where queueRules.contains(finding.ruleID) {
            groups["\(line):\(finding.frameStart)", default: []].append(offset)
        }
        var dropped: Set<Int> = []
        var result = findings
        for members in groups.values where Set(members.map { findings[$0].0.ruleID }).count > 1 {
            let rank = { (offset: Int) in queueRules.firstIndex(of: findings[offset].0.ruleID) ?? queueRules.count }
            guard let kept = members.min(by: { (rank($0), $0) < (rank($1), $1) }) else { continue }
            let keptRule = findings[kept].0.ruleID
            let others = members.filter { findings[$0].0.ruleID != keptRule }
            let otherRules = Array(Set(others.map { findings[$0].0.ruleID })).sorted { queueRules.firstIndex(of: $0)! < queueRules.firstIndex(of: $1)! }
            result[kept].0.message += " (one bug, reported once: \(otherRules.joined(separator: " and ")) \(otherRules.count == 1 ? "sees" : "see") it here too)"
            dropped.formUnion(others)
        }
        return result.enumerated().filter { !dropped.contains($0.offset) }.map(\.element)
    }
}
