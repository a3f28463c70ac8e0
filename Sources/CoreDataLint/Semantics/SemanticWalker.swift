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
    /// A synchronous function certainly isolated to no actor (`startsTasksOffActors`), or
    /// code that runs straight in one: a `Task { }` made here runs on Swift's global
    /// executor, wherever the function itself is called from.
    var startsTasksOffActors = false
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

    @exclusivity(unchecked) var scopes: [[String: Binding]] = [[:]]
    @exclusivity(unchecked) var frames: [Frame] = [Frame(queue: .caller, functionName: "", isActionHandler: false, isDidSaveObserver: false, queueDepth: 0, start: 0)]
    /// The properties of the types being read, innermost last.
    @exclusivity(unchecked) var typeMembers: [[String: Value]] = []
    /// Every stored and computed property each type being walked declares: a name
    /// declared here and not a context (`var context = RenderContext()`) is not the
    /// same-named context property of another type.
    @exclusivity(unchecked) var typeMemberNames: [Set<String>] = []
    /// The names of the types being read, innermost last.
    @exclusivity(unchecked) var typeNames: [String] = []
    /// Parent by child key, from `child.parent = parent`.
    @exclusivity(unchecked) var parents: [String: ContextRef] = [:]
    /// The context property whose initializer is being read: the context made there
    /// is that property.
    @exclusivity(unchecked) var contextPropertyBeingInitialized: (name: String, binding: SyntaxIdentifier)?

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

    // MARK: Binding names

    func bind(_ name: String, _ value: Value?, at node: some SyntaxProtocol, isParameter: Bool = false) {
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

    func pushScope() { scopes.append([:]) }
    func popScope() { scopes.removeLast() }

    // MARK: Types

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
        function.startsTasksOffActors = startsTasksOffActors(function, node)
        enterFunction(function, parameters: node.signature.parameterClause.parameters, function: key)
        return .visitChildren
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
        if let member = target.as(MemberAccessExprSyntax.self), CoreDataAPI.modernName(member.declName.baseName.text) == "parent",
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
    @exclusivity(unchecked) var memoizing = false
    /// Apart, so that looking an expression up copies no value.
    @exclusivity(unchecked) var memoExpressions: [SyntaxIdentifier] = []
    @exclusivity(unchecked) var memoValues: [Value?] = []

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
        let bound = lookup(name)
        guard let binding = bound, binding.value != nil, !Self.isAssignmentTarget(node) else {
            if let object = managedSelf(node, name: name, isBound: bound != nil) {
                for rule in rules { rule.reference(ExprSyntax(node), name: "self", object, self) }
            }
            return .skipChildren
        }
        for rule in rules { rule.reference(ExprSyntax(node), name: name, binding, self) }
        return .skipChildren
    }

    /// `self`, or a bare name of one of its properties (`qualifiedID`, which Swift reads
    /// as `self.qualifiedID`), in a closure inside an instance method of a managed object
    /// class: the object itself, of an unknown context, bound where the method starts.
    /// Nil elsewhere. Only in closures that run apart (`Task { }`, `DispatchQueue.global().async`):
    /// in the method's own body `self` runs wherever its caller does.
    private func managedSelf(_ node: DeclReferenceExprSyntax, name: String, isBound: Bool) -> Binding? {
        guard frame.isClosure, let type = typeName else { return nil }
        let isSelf = node.baseName.tokenKind == .keyword(.self)
        // A bare name: not a local, not a call's callee, not an assignment's target.
        if !isSelf {
            guard !isBound, name.first?.isLowercase == true, !CoreDataAPI.queueFreeObjectMembers.contains(name), !Self.isAssignmentTarget(node),
                node.parent?.as(FunctionCallExprSyntax.self)?.calledExpression.id != node.id
            else { return nil }
        }
        guard let method = Self.enclosingMethod(of: node), index.isManagedObjectClass(type) else { return nil }
        guard isSelf || index.isManagedObjectMember(name, of: type) else { return nil }
        let depth = frames.last { !$0.isClosure && $0.start == method.position.utf8Offset }?.queueDepth ?? 1
        return Binding(value: .managedObject(ManagedObjectInfo()), queueDepth: depth)
    }

    /// The instance method or property accessor around `node`, nil in a static one or
    /// outside any.
    private static func enclosingMethod(of node: some SyntaxProtocol) -> Syntax? {
        var current = node.parent
        while let node = current {
            if let function = node.as(FunctionDeclSyntax.self) {
                return function.modifiers.contains { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) } ? nil : node
            }
            if node.is(InitializerDeclSyntax.self) { return node }
            if node.is(MemberBlockSyntax.self) || node.is(SourceFileSyntax.self) { return nil }
            current = node.parent
        }
        return nil
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
