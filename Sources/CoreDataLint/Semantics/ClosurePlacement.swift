import SwiftSyntax

/// Where a closure runs, read from the call it is handed to:
/// `DispatchQueue.main.async { }` runs on the main queue, `context.perform { }` on the
/// context's queue, `entries.forEach { }` right here, and a closure handed to an API
/// the linter does not know, on a queue it cannot tell.
struct ClosurePlacement {
    var frame: Frame
    /// What the closure's first parameter holds: `performBackgroundTask`'s new
    /// context, or an element of the managed objects `forEach` walks.
    var firstParameter: Value?

    init(_ closure: ClosureExprSyntax, walker: SemanticWalker) {
        let outer = walker.frame
        frame = Frame(
            queue: .unknown, functionName: outer.functionName, isActionHandler: false,
            isDidSaveObserver: false, queueDepth: outer.queueDepth + 1, start: closure.position.utf8Offset, isClosure: true)
        if let call = closure.parent?.as(FunctionCallExprSyntax.self), call.calledExpression.id == closure.id {
            frame = outer  // `{ ... }()` runs right here.
            return
        }
        if Self.isMainActorClosure(closure) {
            frame.queue = .main
            frame.taskInherits = true
            frame.reason = "the closure is @MainActor"
            return
        }
        guard let (call, label) = Self.call(receiving: closure) else { return }
        place(byCall: call, label, closure, outer: outer, walker)
    }

    /// A closure handed to a call: a SwiftUI action, a `Task`, an argument run before the
    /// call returns, or a method by its receiver and name.
    private mutating func place(byCall call: FunctionCallExprSyntax, _ label: String?, _ closure: ClosureExprSyntax, outer: Frame, _ walker: SemanticWalker) {
        if Self.isButtonAction(call, label: label) {
            frame.queue = .main
            frame.isActionHandler = true
            frame.functionName = "a SwiftUI Button action"
            return
        }
        if Self.isTaskInit(call) {
            // `Task { }` runs where the code around it is isolated: on the main actor in
            // @MainActor code, off every actor in a nonisolated async function or an
            // actor's method; elsewhere it cannot be told.
            if outer.taskInherits {
                frame.queue = outer.queue
                frame.reason = outer.reason
                frame.taskInherits = true
            } else if outer.startsTasksOffActors, outer.queue == .caller {
                frame.queue = .background("Swift's global executor")
                frame.reason = "`Task { }` in \(outer.functionName), a synchronous function isolated to no actor, inherits none and runs on Swift's global executor"
                frame.taskInherits = true
            }
            return
        }
        if Self.isResultCatching(call, label: label) || Self.isNonEscapingArgument(closure, of: call, walker: walker) {
            frame = outer
            return
        }
        guard let member = call.calledExpression.as(MemberAccessExprSyntax.self) else {
            placeByCallee(call, closure, label, walker)
            return
        }
        let site = CallSite(call: call, label: label, method: CoreDataAPI.modernName(member.declName.baseName.text), base: member.base.map(Expressions.unwrapped))
        if place(byKnownAPI: site, closure, outer: outer, walker) { return }
        place(byMethodName: site, closure, outer: outer, walker)
    }

    /// The call a closure is handed to, read once: its method's name and its receiver.
    private struct CallSite {
        var call: FunctionCallExprSyntax
        var label: String?
        var method: String
        var base: ExprSyntax?
    }

    /// Core Data's, Combine's, CloudKit's and the API table's callbacks; false when none
    /// of them is the call.
    private mutating func place(byKnownAPI site: CallSite, _ closure: ClosureExprSyntax, outer: Frame, _ walker: SemanticWalker) -> Bool {
        let (call, label, method, base) = (site.call, site.label, site.method, site.base)
        if method == "loadPersistentStores", !Self.addsStoresAsynchronously(around: call) {
            // The completion handler runs on the calling thread, before the call returns,
            // unless a store description sets shouldAddStoreAsynchronously (read in the
            // function or property that loads the stores).
            frame = outer
            return true
        }
        if method == "scheduledTimer", base.flatMap(Expressions.lastName) == "Timer" {
            // A timer scheduled on the current run loop fires there: the main run loop's
            // when scheduled from the main queue; a background thread rarely runs one.
            if outer.queue == .main { frame.queue = .main; frame.reason = outer.reason }
            return true
        }
        if let scheduler = walker.index.apiTable.deliveryScheduler(upstreamOf: base) {
            // Downstream of `receive(on:)`: Combine runs the closure on that scheduler.
            frame.queue = Self.schedulerQueue(scheduler) ?? .unknown
            if frame.queue == .main { frame.reason = "receive(on: \(Expressions.text(scheduler))) delivers to the main queue" }
            return true
        }
        if CoreDataAPI.synchronousClosureMethods.contains(method) {
            frame = outer
            if let base, case .managedObject(var object) = walker.resolve(base), object.isCollection {
                object.isCollection = false
                firstParameter = .managedObject(object)
            }
            return true
        }
        if Self.isCloudKitSaveCompletion(method: method, base: base, call: call, label: label, closure: closure) {
            frame.queue = .background("a CloudKit completion handler, which may run on any thread")
            frame.reason = "CKDatabase.save(_:completionHandler:) calls its completion handler on a thread of its choosing (Apple: \"Your block must be capable of running on any thread of the app\")"
            return true
        }
        if let row = walker.index.apiTable.callback(method: method, receiver: base, label: label) {
            place(by: row, closure, outer: outer)
            return true
        }
        if let queue = Self.callbackQueue(method: method, base: base, call: call)
            ?? (Self.receiverQueueMethods.contains(method) ? Self.callbackQueue(method: method, resolved: base.flatMap(walker.resolve)) : nil)
        {
            frame.queue = queue
            return true
        }
        return false
    }

    /// Dispatch, tasks, `perform` and observers, by the method's name.
    private mutating func place(byMethodName site: CallSite, _ closure: ClosureExprSyntax, outer: Frame, _ walker: SemanticWalker) {
        let (method, base) = (site.method, site.base)
        switch method {
        case "async", "asyncAfter", "sync":
            frame.queue = base.flatMap(Self.dispatchQueue) ?? .unknown
            // A queue the app made runs its async blocks on a thread of its own, outside
            // every context's queue; `sync` may run its block on the caller's thread.
            if frame.queue == .unknown, method != "sync", let base, case .dispatchQueue(let name) = walker.resolve(base) {
                frame.queue = .background("the dispatch queue \(name) (made with DispatchQueue(label:))")
            }
        case "detached" where base.flatMap(Expressions.lastName) == "Task":
            frame.queue = .background("the thread of a detached task (Task.detached)")
            frame.taskInherits = true
        case "run" where base.flatMap(Expressions.lastName) == "MainActor":
            frame.queue = .main
            frame.taskInherits = true
            frame.reason = "MainActor.run runs its closure on the main actor"
        case "addTask", "addTaskUnlessCancelled":
            frame.queue = .background("a task group's child task (addTask)")
            frame.taskInherits = true
        case "perform", "performAndWait":
            guard let context = walker.context(base) else { return }
            frame.queue = .context(context)
            frame.isPerformAndWait = method == "performAndWait"
            // performAndWait, and perform on the main queue, still hold up the caller.
            frame.isActionHandler = outer.isActionHandler && context.queue == .main
        case "addObserver":
            placeObserver(site.call, walker)
        default:
            placeByCallee(site.call, closure, site.label, walker)
        }
    }

    /// `NotificationCenter.addObserver(forName:object:queue:using:)`: a did-save observer
    /// on its queue, any other observer on the queue it names.
    private mutating func placeObserver(_ call: FunctionCallExprSyntax, _ walker: SemanticWalker) {
        guard let name = Expressions.argument("forName", of: call) else { return }
        let queue = Expressions.argument("queue", of: call).map(Expressions.unwrapped)
        guard CoreDataAPI.didSaveNotifications.contains(Expressions.lastName(name) ?? "") else {
            // Any other notification: its observer runs on the queue it names, `.main`
            // or a new OperationQueue; with `queue: nil`, on the posting thread, which
            // the linter cannot tell.
            if let queue, Self.isMainQueue(queue) {
                frame.queue = .main
            } else if let queue, let made = queue.as(FunctionCallExprSyntax.self), Self.isNewOperationQueue(made) {
                frame.queue = .background("the observer's queue '\(Expressions.text(queue))'")
            } else if let queue, case .operationQueue(let name) = walker.resolve(queue) {
                frame.queue = .background("the observer's queue '\(name)'")
            }
            return
        }
        frame.isDidSaveObserver = true
        frame.queue = Self.observerQueue(queue)
    }

    /// Where an API table row puts the closure (`APITable`).
    private mutating func place(by row: APITable.Callback, _ closure: ClosureExprSyntax, outer: Frame) {
        switch row.queue {
        case .main:
            frame.queue = .main
            frame.reason = row.why.map { "\($0) runs on the main queue" }
        case .background:
            frame.queue = .background(row.why ?? "a \(row.method) callback, off the main queue and every context's")
        case .privateContext:
            // `performBackgroundTask { context in }`: a new private context, on its queue.
            let context = ContextRef(
                key: "\(row.method)@\(closure.position.utf8Offset)",
                name: Self.parameters(of: closure).first?.text ?? "$0", queue: .private, origin: .backgroundTask)
            frame.queue = .context(context)
            firstParameter = .context(context)
        case .here:
            frame = outer
        case .unknown:
            break
        }
    }

    /// A closure handed to a project function that runs that closure parameter only on
    /// one queue (`DispatchQueue.main.async { success(data) }` in its body).
    private mutating func placeByCallee(_ call: FunctionCallExprSyntax, _ closure: ClosureExprSyntax, _ label: String?, _ walker: SemanticWalker) {
        guard let known = walker.index.closureParameterQueue(of: call, closure: closure, label: label) else { return }
        let callee = "`\(known.function)(\(known.label == "_" ? "_" : known.label):)`"
        switch known.queue {
        case .main:
            frame.queue = .main
            frame.reason = "\(callee) runs the closure on the main queue (\(known.place.described))"
        case .background:
            frame.queue = .background("the queue \(callee) runs the closure on")
            frame.reason = "\(callee) runs the closure off the main queue and every context's (\(known.place.described))"
        }
    }

    /// `Result { try … }`, `Result(catching: { … })`: the standard library's
    /// `Result(catching:)` evaluates its closure right away, before it returns.
    static func isResultCatching(_ call: FunctionCallExprSyntax, label: String?) -> Bool {
        call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text == "Result" && (label == "catching" || label == nil && call.arguments.isEmpty)
    }

    /// `try operation(context) { … }` where `operation` is a parameter of the function
    /// around, of a function type whose parameter there is not `@escaping`
    /// (`(NSManagedObjectContext, () -> Void) throws -> T`): Swift lets a non-escaping
    /// closure run only during the call it is handed to, so it runs there, inside
    /// whatever `perform { }` or `performAndWait { }` the call is in. An optional or
    /// `@escaping` parameter, or a type the code names by an alias, may keep the closure
    /// for later: unknown.
    static func isNonEscapingArgument(_ closure: ClosureExprSyntax, of call: FunctionCallExprSyntax, walker: SemanticWalker) -> Bool {
        guard let callee = call.calledExpression.as(DeclReferenceExprSyntax.self), walker.lookup(callee.baseName.text)?.isParameter == true else {
            return false
        }
        let position: Int
        if call.trailingClosure?.id == closure.id {
            position = call.arguments.count
        } else if let index = call.arguments.firstIndex(where: { $0.expression.id == closure.id }) {
            position = call.arguments.distance(from: call.arguments.startIndex, to: index)
        } else {
            return false
        }
        var current = Syntax(call).parent
        while let node = current {
            let parameters = node.as(FunctionDeclSyntax.self)?.signature.parameterClause.parameters
                ?? node.as(InitializerDeclSyntax.self)?.signature.parameterClause.parameters
            if let parameter = parameters?.first(where: { ($0.secondName ?? $0.firstName).text == callee.baseName.text }) {
                var type = parameter.type
                if let attributed = type.as(AttributedTypeSyntax.self) { type = attributed.baseType }
                guard let function = type.as(FunctionTypeSyntax.self), position < function.parameters.count else { return false }
                let argument = function.parameters[function.parameters.index(function.parameters.startIndex, offsetBy: position)].type
                // `@escaping () -> Void` is attributed; a plain function type is not.
                return argument.is(FunctionTypeSyntax.self)
            }
            current = node.parent
        }
        return false
    }

    /// Where a closure runs, by the shape of the call it is handed to alone (the first
    /// pass has no names to resolve).
    enum Shape {
        /// Right where it is written: `{ }()`, `forEach`, `map`...
        case here
        case main
        case background
        /// `x.perform { }`, `x.performAndWait { }`.
        case perform(ExprSyntax?, andWait: Bool)
        /// `performBackgroundTask { }`: a new private context's queue; the method's name.
        case privateBlock(String)
        /// `Timer.scheduledTimer(withTimeInterval:repeats:) { }`: on the run loop of the
        /// thread that schedules it.
        case timer
        case elsewhere
    }

    static func shape(of closure: ClosureExprSyntax, table: APITable = .builtIn) -> Shape {
        if let call = closure.parent?.as(FunctionCallExprSyntax.self), call.calledExpression.id == closure.id { return .here }
        if isMainActorClosure(closure) { return .main }
        guard let (call, label) = call(receiving: closure) else { return .elsewhere }
        if isButtonAction(call, label: label) { return .main }
        if isResultCatching(call, label: label) { return .here }
        guard let member = call.calledExpression.as(MemberAccessExprSyntax.self) else { return .elsewhere }
        let method = CoreDataAPI.modernName(member.declName.baseName.text)
        let base = member.base.map(Expressions.unwrapped)
        if let scheduler = table.deliveryScheduler(upstreamOf: base) {
            switch schedulerQueue(scheduler) {
            case .main?: return .main
            case .background?: return .background
            default: return .elsewhere
            }
        }
        if CoreDataAPI.synchronousClosureMethods.contains(method) { return .here }
        if method == "run", base.flatMap(Expressions.lastName) == "MainActor" { return .main }
        if method == "addTask" || method == "addTaskUnlessCancelled" { return .background }
        if let row = table.callback(method: method, receiver: base, label: label) {
            switch row.queue {
            case .main: return .main
            case .background: return .background
            case .privateContext: return .privateBlock(row.method)
            case .here: return .here
            case .unknown: return .elsewhere
            }
        }
        switch callbackQueue(method: method, base: base, call: call) ?? (["async", "asyncAfter", "sync"].contains(method) ? base.flatMap(dispatchQueue) : nil) {
        case .main: return .main
        case .background: return .background
        default: break
        }
        if method == "detached", base.flatMap(Expressions.lastName) == "Task" { return .background }
        if method == "perform" || method == "performAndWait" { return .perform(base, andWait: method == "performAndWait") }
        if method == "scheduledTimer", base.flatMap(Expressions.lastName) == "Timer" { return .timer }
        if method == "async" || method == "asyncAfter", let base, isOwnQueue(base, around: closure) { return .background }
        if isCloudKitSaveCompletion(method: method, base: base, call: call, label: label, closure: closure) { return .background }
        return .elsewhere
    }

    /// `database.save(record) { record, error in … }` on a `CKDatabase`: Apple's reference
    /// for `saveRecord:completionHandler:` (and `saveRecordZone:completionHandler:`)
    /// says of the completion handler, "Your block must be capable of running on any
    /// thread of the app": CloudKit picks the thread, so code there is on no context's
    /// queue and not certainly on the main one. The database is told by its name
    /// (`publicCloudDatabase`, `privateCloudDatabase`, `sharedCloudDatabase`, or a `let`
    /// or property set from one or declared `CKDatabase`). CloudKit's other methods stay
    /// unknown.
    static func isCloudKitSaveCompletion(method: String, base: ExprSyntax?, call: FunctionCallExprSyntax, label: String?, closure: ClosureExprSyntax) -> Bool {
        guard method == "save", label == "completionHandler" || (label == nil && call.arguments.count == 1), let base else { return false }
        return isCloudDatabase(base, around: closure)
    }

    private static let cloudDatabases: Set<String> = ["publicCloudDatabase", "privateCloudDatabase", "sharedCloudDatabase"]

    /// `container.privateCloudDatabase`, or `database` / `self.database` where the code
    /// around declares it `CKDatabase` or sets it from one of a container's databases.
    private static func isCloudDatabase(_ base: ExprSyntax, around closure: ClosureExprSyntax) -> Bool {
        let name: String
        if let member = base.as(MemberAccessExprSyntax.self), !Expressions.isSelf(member.base) {
            return cloudDatabases.contains(member.declName.baseName.text)
        } else if let member = base.as(MemberAccessExprSyntax.self) {
            name = member.declName.baseName.text
        } else if let reference = base.as(DeclReferenceExprSyntax.self) {
            name = reference.baseName.text
        } else {
            return false
        }
        guard let binding = binding(of: name, around: closure) else { return false }
        if let type = binding.typeAnnotation?.type { return TypeNames.base(of: type) == "CKDatabase" }
        guard let value = binding.initializer?.value else { return false }
        return Expressions.lastName(Expressions.unwrapped(value)).map(cloudDatabases.contains) ?? false
    }

    /// An operation added to a new `OperationQueue()` made right there: what the
    /// receiver's value, not an API row, tells (`OperationQueue.main` is a row of `APITable`).
    private static func callbackQueue(method: String, base: ExprSyntax?, call: FunctionCallExprSyntax) -> ExecutionQueue? {
        guard let base, method == "addOperation" else { return nil }
        if let made = base.as(FunctionCallExprSyntax.self), isNewOperationQueue(made) {
            return .background("an OperationQueue operation")
        }
        return nil
    }

    /// The methods whose closure's queue the receiver's value tells.
    private static let receiverQueueMethods: Set<String> = ["dataTask", "downloadTask", "uploadTask", "addOperation", "addBarrierBlock"]

    /// The same, from what the receiver holds: a session the code made
    /// (`URLSession(configuration:)`, or with a `delegateQueue:`), an operation queue it
    /// made (`let queue = OperationQueue()`).
    private static func callbackQueue(method: String, resolved: Value?) -> ExecutionQueue? {
        switch (method, resolved) {
        case ("dataTask", .urlSession(let delegateQueue)?), ("downloadTask", .urlSession(let delegateQueue)?),
            ("uploadTask", .urlSession(let delegateQueue)?):
            return delegateQueue
        case ("addOperation", .operationQueue(let name)?), ("addBarrierBlock", .operationQueue(let name)?):
            return .background("an operation of the OperationQueue \(name)")
        default:
            return nil
        }
    }

    /// `queue` or `self.queue` where the code around declares `let queue =
    /// DispatchQueue(label: …)`: a local of an enclosing block, or a `let` property of
    /// the enclosing type. Read from the syntax alone, for the first pass.
    static func isOwnQueue(_ base: ExprSyntax, around closure: ClosureExprSyntax) -> Bool {
        let name: String
        if let reference = base.as(DeclReferenceExprSyntax.self) {
            name = reference.baseName.text
        } else if let member = base.as(MemberAccessExprSyntax.self), Expressions.isSelf(member.base) {
            name = member.declName.baseName.text
        } else {
            return false
        }
        guard let binding = binding(of: name, around: closure, letsOnly: true),
            let call = binding.initializer?.value.as(FunctionCallExprSyntax.self)
        else { return false }
        return call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text == "DispatchQueue"
            && Expressions.argument("label", of: call) != nil
    }

    /// The declaration of `name` nearest around `closure`: a variable of an enclosing
    /// block, or a property of the enclosing type, where the search ends (an outer type's
    /// property is not `self`'s). With `letsOnly`, `var`s are passed over.
    private static func binding(of name: String, around closure: ClosureExprSyntax, letsOnly: Bool = false) -> PatternBindingSyntax? {
        var current = Syntax(closure).parent
        while let node = current {
            let declarations: [VariableDeclSyntax]
            if let block = node.as(CodeBlockItemListSyntax.self) {
                declarations = block.compactMap { $0.item.as(VariableDeclSyntax.self) }
            } else if let members = node.as(MemberBlockItemListSyntax.self) {
                declarations = members.compactMap { $0.decl.as(VariableDeclSyntax.self) }
            } else {
                current = node.parent
                continue
            }
            for variable in declarations where !letsOnly || variable.bindingSpecifier.tokenKind == .keyword(.let) {
                if let binding = variable.bindings.first(where: { $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == name }) {
                    return binding
                }
            }
            if node.is(MemberBlockItemListSyntax.self) { return nil }
            current = node.parent
        }
        return nil
    }

    /// `OperationQueue()`: a queue of the app's own, off the main queue.
    static func isNewOperationQueue(_ call: FunctionCallExprSyntax) -> Bool {
        Expressions.lastName(call.calledExpression) == "OperationQueue" && call.arguments.isEmpty && call.trailingClosure == nil
    }

    /// Whether the function (or property) around `call` mentions `shouldAddStoreAsynchronously`.
    private static func addsStoresAsynchronously(around call: FunctionCallExprSyntax) -> Bool {
        var current = Syntax(call).parent
        while let node = current {
            if node.is(FunctionDeclSyntax.self) || node.is(InitializerDeclSyntax.self) || node.is(PatternBindingSyntax.self) && node.parent?.parent?.parent?.is(MemberBlockItemSyntax.self) == true {
                // Its length first, read without making the token's text: most tokens are
                // shorter or longer.
                let name = "shouldAddStoreAsynchronously"
                return node.tokens(viewMode: .sourceAccurate).contains { $0.trimmedLength.utf8Length == name.utf8.count && $0.text == name }
            }
            current = node.parent
        }
        return true
    }

    /// `{ @MainActor in … }`.
    static func isMainActorClosure(_ closure: ClosureExprSyntax) -> Bool {
        guard let attributes = closure.signature?.attributes, !attributes.isEmpty else { return false }
        return Attributes.has("MainActor", in: attributes)
    }

    /// `Task { }`, `Task(priority: …) { }`: an unstructured task, not a detached one.
    static func isTaskInit(_ call: FunctionCallExprSyntax) -> Bool {
        call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text == "Task"
    }

    /// The call a closure is an argument or a trailing closure of, with its label.
    static func call(receiving closure: ClosureExprSyntax) -> (FunctionCallExprSyntax, String?)? {
        if let call = closure.parent?.as(FunctionCallExprSyntax.self), call.trailingClosure?.id == closure.id {
            return (call, nil)
        }
        if let element = closure.parent?.as(MultipleTrailingClosureElementSyntax.self),
            let call = element.parent?.parent?.as(FunctionCallExprSyntax.self)
        {
            return (call, element.label.text)
        }
        if let argument = closure.parent?.as(LabeledExprSyntax.self), let call = argument.parent?.parent?.as(FunctionCallExprSyntax.self) {
            return (call, argument.label?.text)
        }
        return nil
    }

    /// Whether a closure binds `name` itself, as a parameter or in its capture list
    /// (`[context = archive]`): inside it, the name is not the function's.
    static func binds(_ name: String, _ closure: ClosureExprSyntax) -> Bool {
        if parameters(of: closure).contains(where: { $0.text == name }) { return true }
        return closure.signature?.capture?.items.contains { $0.name.text == name } ?? false
    }

    /// Whether a closure between `node` and its function binds `name` (`binds(_:_:)`).
    static func isBoundByClosure(_ name: String, around node: some SyntaxProtocol) -> Bool {
        var current = Syntax(node).parent
        while let syntax = current {
            switch syntax.kind {
            case .functionDecl, .initializerDecl, .accessorBlock: return false
            case .closureExpr: if binds(name, syntax.cast(ClosureExprSyntax.self)) { return true }
            default: break
            }
            current = syntax.parent
        }
        return false
    }

    /// The names of a closure's parameters: `{ context in }`, `{ (note: Notification) in }`.
    static func parameters(of closure: ClosureExprSyntax) -> [TokenSyntax] {
        switch closure.signature?.parameterClause {
        case .simpleInput(let list): list.map(\.name)
        case .parameterClause(let clause): clause.parameters.map { $0.secondName ?? $0.firstName }
        case nil: []
        }
    }

    /// `Button("Export") { … }`, `Button(action: { … }) { label }`, `Button { … } label: { … }`.
    private static func isButtonAction(_ call: FunctionCallExprSyntax, label: String?) -> Bool {
        guard call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text == "Button" else { return false }
        return label == "action" || (label == nil && Expressions.argument("action", of: call) == nil)
    }

    /// The queue of `DispatchQueue.main` or `DispatchQueue.global(…)`; nil for a queue
    /// the linter cannot tell from a context's.
    private static func dispatchQueue(_ queue: ExprSyntax) -> ExecutionQueue? {
        if isMainQueue(queue) { return .main }
        if let call = queue.as(FunctionCallExprSyntax.self), Expressions.lastName(call.calledExpression) == "global" {
            return .background("a global queue (DispatchQueue.global())")
        }
        return nil
    }

    /// The queue a Combine scheduler names: `DispatchQueue.main`, `RunLoop.main`,
    /// `OperationQueue.main` (the main queue), `DispatchQueue.global()`; nil otherwise.
    static func schedulerQueue(_ scheduler: ExprSyntax) -> ExecutionQueue? {
        if let member = scheduler.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "main",
            member.base.flatMap(Expressions.lastName) == "RunLoop"
        {
            return .main
        }
        return dispatchQueue(scheduler)
    }

    /// Where a did-save observer runs: `queue: nil` on the saving context's thread.
    private static func observerQueue(_ queue: ExprSyntax?) -> ExecutionQueue {
        guard let queue, !queue.is(NilLiteralExprSyntax.self) else { return .postingThread }
        if isMainQueue(queue) { return .main }
        return .background("the observer's queue '\(Expressions.text(queue))'")
    }

    /// `DispatchQueue.main`, `OperationQueue.main`, `.main`.
    static func isMainQueue(_ expression: ExprSyntax) -> Bool {
        guard let member = expression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "main" else { return false }
        guard let base = member.base else { return true }
        return ["DispatchQueue", "OperationQueue"].contains(Expressions.lastName(base) ?? "")
    }
}
