import SwiftSyntax

/// What an expression holds: locals, members, calls, casts and Core Data's own calls.
extension SemanticWalker {

    /// `x as? [T]`, `x ?? y`, and `(try? x) as? [T] ?? []`: casts bind tighter than `??`.
    func resolve(_ sequence: SequenceExprSyntax) -> Value? {
        resolve(elements: Array(sequence.elements)[...])
    }

    func resolve(elements: ArraySlice<ExprSyntax>) -> Value? {
        if let coalescing = elements.firstIndex(where: { $0.as(BinaryOperatorExprSyntax.self)?.operator.text == "??" }) {
            return resolve(operands: elements[..<coalescing]) ?? resolve(operands: elements[(coalescing + 1)...])
        }
        return resolve(operands: elements[...])
    }

    func resolve(operands: ArraySlice<ExprSyntax>) -> Value? {
        guard let first = operands.first else { return nil }
        if operands.count == 1 { return resolve(first) }
        let rest = Array(operands.dropFirst())
        guard rest.count == 2, rest[0].is(UnresolvedAsExprSyntax.self), let type = rest[1].as(TypeExprSyntax.self) else { return nil }
        return cast(resolve(first), to: type.type)
    }

    func resolve(_ member: MemberAccessExprSyntax) -> Value? {
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
    func resolveContextFunction(_ name: String, _ call: FunctionCallExprSyntax) -> Value? {
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

    func resolve(_ call: FunctionCallExprSyntax) -> Value? {
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

    func resolveMethodCall(_ member: MemberAccessExprSyntax, _ call: FunctionCallExprSyntax) -> Value? {
        let name = member.declName.baseName.text
        switch name {
        case "newBackgroundContext":
            return .context(.made(by: call, queue: .private))
        case "insertNewObject", "insertNewObjectForEntityForName":
            // Swift 2 spelled it `insertNewObjectForEntityForName(_:inManagedObjectContext:)`.
            guard let owner = Expressions.argument("into", of: call) ?? Expressions.argument("inManagedObjectContext", of: call) else { return nil }
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
            switch CoreDataAPI.modernName(name) {
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
    static func session(made call: FunctionCallExprSyntax) -> Value? {
        guard Expressions.argument("configuration", of: call) != nil else { return nil }
        let own = ExecutionQueue.background("a URLSession completion handler (the session's delegate queue)")
        guard let queue = Expressions.argument("delegateQueue", of: call).map(Expressions.unwrapped) else { return .urlSession(own) }
        if queue.is(NilLiteralExprSyntax.self) { return .urlSession(own) }
        if ClosurePlacement.isMainQueue(queue) { return .urlSession(.main) }
        if let made = queue.as(FunctionCallExprSyntax.self), ClosurePlacement.isNewOperationQueue(made) { return .urlSession(own) }
        return nil
    }

    /// `NSFetchedResultsController(fetchRequest: …, managedObjectContext: context, …)`.
    func fetchedResultsController(_ call: FunctionCallExprSyntax) -> Value? {
        context(Expressions.argument("managedObjectContext", of: call)).map(Value.fetchedResultsController)
    }

    /// A fetched results controller property's initializer, `{ …; return
    /// NSFetchedResultsController(…) }()` or the call itself: the controller it makes.
    func fetchedResultsController(initializedBy value: ExprSyntax) -> Value? {
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
    func returnedObjects(_ call: FunctionCallExprSyntax) -> Value? {
        if let returned = index.propertyObjectReturn(of: call), index.isManagedObjectClass(returned.returned.type) {
            let owner = ContextRef.indexed(returned.returned.context, returned.fact, currentFile: fileName)
            return .managedObject(ManagedObjectInfo(owner: owner, isCollection: returned.returned.isCollection))
        }
        guard let (returned, argument) = index.objectReturn(of: call),
            returned.type == CoreDataAPI.managedObjectType || index.isManagedObjectClass(returned.type)
        else { return nil }
        return .managedObject(ManagedObjectInfo(owner: context(argument), isCollection: returned.isCollection))
    }

    func element(of value: Value?) -> Value? {
        guard case .managedObject(var object) = value, object.isCollection else { return nil }
        object.isCollection = false
        return .managedObject(object)
    }

    func cast(_ value: Value?, to type: TypeSyntax) -> Value? {
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

    func concurrencyType(of call: FunctionCallExprSyntax) -> ContextQueue {
        guard let type = Expressions.argument("concurrencyType", of: call).flatMap(Expressions.lastName) else { return .unknown }
        return CoreDataAPI.queue(named: type) ?? .unknown
    }

    /// What a declared type says a name holds.
    func declaredValue(_ type: TypeSyntax, key: String, name: String, origin: ContextOrigin) -> Value? {
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

    func memberValue(_ name: String) -> Value? {
        ownedBySelf(memberValueOfType(name))
    }

    func memberValueOfType(_ name: String) -> Value? {
        if let value = typeMembers.last?[name] { return value }
        if typeMemberNames.last?.contains(name) == true { return nil }
        if let fact = index.contextProperty(name, in: typeNames.last) { return .context(ContextRef.indexed(name, fact, currentFile: fileName)) }
        return nil
    }

    /// A context property of the type being read is `self`'s.
    func ownedBySelf(_ value: Value?) -> Value? {
        guard case .context(var context) = value, context.origin == .property, !typeNames.isEmpty else { return value }
        context.owner = .selfInstance
        return .context(context)
    }
}
