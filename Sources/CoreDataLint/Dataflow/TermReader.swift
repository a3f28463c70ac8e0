import SwiftSyntax

/// The transfer functions of expressions: what an expression holds, as a term, in the
/// environment the `BodyInterpreter` keeps (locals, parameters, closure parameters).
struct TermReader {
    /// The innermost binding of a local or parameter; `.some(nil)` for a local that
    /// holds nothing followed, nil for a name that is no local (a property, a type).
    var lookup: (String) -> ValueTerm??
    /// What a closure literal returned, once the interpreter has read it.
    var closureResult: (ClosureExprSyntax) -> ValueTerm?
    /// `self` as a value: the receiver of a context extension's method, else nil.
    var selfTerm: ValueTerm?
    /// The API table's contexts by name: `mr_default()`, `@Injected(\.context)`'s key.
    var apiContexts: [String: APITable.ContextRow]
    var site: (any SyntaxProtocol) -> String

    func term(_ expression: ExprSyntax) -> ValueTerm? {
        switch expression.kind {
        case .tryExpr, .awaitExpr, .forceUnwrapExpr, .optionalChainingExpr, .tupleExpr:
            let inner = Expressions.unwrapped(expression)
            return inner.id == expression.id ? nil : term(inner)
        case .declReferenceExpr: return reference(expression.cast(DeclReferenceExprSyntax.self))
        case .memberAccessExpr: return member(expression.cast(MemberAccessExprSyntax.self))
        case .functionCallExpr: return call(expression.cast(FunctionCallExprSyntax.self))
        case .subscriptCallExpr:
            return term(expression.cast(SubscriptCallExprSyntax.self).calledExpression).map { .element($0) }
        case .asExpr: return term(expression.cast(AsExprSyntax.self).expression)
        case .ternaryExpr:
            let ternary = expression.cast(TernaryExprSyntax.self)
            return ValueTerm.joined(term(ternary.thenExpression), term(ternary.elseExpression))
        case .sequenceExpr: return sequence(expression.cast(SequenceExprSyntax.self))
        case .closureExpr: return closureResult(expression.cast(ClosureExprSyntax.self))
        default: return nil
        }
    }

    /// `a ?? b`, `x as? T` folded by the parser into a sequence.
    private func sequence(_ sequence: SequenceExprSyntax) -> ValueTerm? {
        let elements = Array(sequence.elements)
        // `c ? a : b`, unfolded: the ternary's `a`, and what follows it.
        if let index = elements.firstIndex(where: { $0.is(UnresolvedTernaryExprSyntax.self) }), index == elements.count - 2 {
            return ValueTerm.joined(term(elements[index].cast(UnresolvedTernaryExprSyntax.self).thenExpression), term(elements[index + 1]))
        }
        // `a ?? b ?? c`: any of them.
        if elements.count >= 3, elements.count % 2 == 1,
            stride(from: 1, to: elements.count, by: 2).allSatisfy({ elements[$0].as(BinaryOperatorExprSyntax.self)?.operator.text == "??" })
        {
            return stride(from: 0, to: elements.count, by: 2).reduce(nil as ValueTerm?) { joined, index in
                BodyInterpreter.isLiteral(elements[index]) ? joined : ValueTerm.joined(joined, term(elements[index]))
            }
        }
        if elements.count == 3, elements[1].is(UnresolvedAsExprSyntax.self) { return term(elements[0]) }
        return nil
    }

    private func reference(_ reference: DeclReferenceExprSyntax) -> ValueTerm? {
        let name = reference.baseName.text
        if reference.baseName.tokenKind == .keyword(.self) { return selfTerm }
        if let bound = lookup(name) { return bound }
        if let row = apiContexts[name] { return .value(.context(Self.owner(of: row, site: site(reference)))) }
        guard let first = name.unicodeScalars.first, first.properties.isLowercase || name.hasPrefix("_") else { return nil }
        return .property(name)
    }

    private func member(_ member: MemberAccessExprSyntax) -> ValueTerm? {
        let name = member.declName.baseName.text
        if name == "viewContext" { return .value(.context(Owner(queue: .main, identity: .property("viewContext")))) }
        if let row = apiContexts[name] { return .value(.context(Self.owner(of: row, site: site(member)))) }
        // `.privateQueueConcurrencyType`, `NSManagedObjectContextConcurrencyType.MainQueueConcurrencyType`.
        if name.hasSuffix("QueueConcurrencyType"), let queue = CoreDataAPI.queue(named: name) { return .value(.concurrencyType(queue)) }
        guard let base = member.base else { return nil }
        if CoreDataAPI.elementMethods.contains(name) { return term(base).map { .element($0) } }
        if CoreDataAPI.subsequenceMethods.contains(name) { return term(base) }
        if name == "objectID" || name == "count" || name == "isEmpty" { return nil }
        if Expressions.isSelf(base) { return .property(name) }
        if let reference = Expressions.unwrapped(base).as(DeclReferenceExprSyntax.self), reference.baseName.text.first?.isUppercase == true {
            return .property(name)  // `Stack.shared.context`, a static property
        }
        guard let baseTerm = term(base) else { return .property(name) }
        return .member(baseTerm, name).bounded
    }

    static func owner(of row: APITable.ContextRow, site: String) -> Owner {
        Owner(queue: row.queue, identity: row.makesNew ? .made(site) : .property(row.name), makesNew: row.makesNew)
    }
}

extension TermReader {
    /// The transfer function of a call: Core Data's API, the API table, collections,
    /// and every other call as a term the solver looks up in the function summaries.
    func call(_ call: FunctionCallExprSyntax) -> ValueTerm? {
        if let closure = call.calledExpression.as(ClosureExprSyntax.self) { return closureResult(closure) }  // `{ … }()`
        let arguments = self.arguments(of: call)
        if let member = call.calledExpression.as(MemberAccessExprSyntax.self) {
            let name = member.declName.baseName.text
            if let known = coreDataCall(name, member.base, call) { return known }
            if let row = apiContexts[name] { return .value(.context(Self.owner(of: row, site: site(call)))) }
            if let base = member.base, Expressions.isSelf(base) || base.as(DeclReferenceExprSyntax.self)?.baseName.text.first?.isUppercase == true {
                return ValueTerm.call(name, receiver: nil, arguments: arguments).bounded
            }
            return ValueTerm.call(name, receiver: member.base.flatMap(term), arguments: arguments).bounded
        }
        guard let name = Expressions.lastName(call.calledExpression) else { return nil }
        // `fetch(request)` in a context extension: a call on its receiver.
        if selfTerm != nil, let known = coreDataCall(name, nil, call) { return known }
        if name == CoreDataAPI.contextType {
            let queue = FactCollector.evidence(of: Syntax(call.arguments))
            if case .queue(let known) = queue { return .value(.context(.made(site(call), queue: known))) }
            // A concurrency type from elsewhere: a helper's parameter, a local.
            guard let type = Expressions.argument("concurrencyType", of: call).flatMap(term) else { return .value(.context(.unknown)) }
            return .madeContext(site: site(call), queue: type).bounded
        }
        if name == "newBackgroundContext" { return .value(.context(.made(site(call), queue: .private))) }
        if let row = apiContexts[name] { return .value(.context(Self.owner(of: row, site: site(call)))) }
        return ValueTerm.call(name, receiver: nil, arguments: arguments).bounded
    }

    /// The arguments with their labels; a trailing closure is labelled "trailing".
    func arguments(of call: FunctionCallExprSyntax) -> [TermArgument] {
        var arguments = call.arguments.map { TermArgument(label: $0.label?.text ?? "_", term: term($0.expression) ?? .unknown) }
        if let trailing = call.trailingClosure { arguments.append(TermArgument(label: "trailing", term: closureResult(trailing) ?? .unknown)) }
        return arguments
    }

    /// `context.fetch(…)`, `object(with:)`, `performAndWait { … }`'s result,
    /// `newBackgroundContext()`, `objects.first(where:)`.
    private func coreDataCall(_ name: String, _ base: ExprSyntax?, _ call: FunctionCallExprSyntax) -> ValueTerm? {
        let receiver = base.flatMap(term) ?? selfTerm
        switch CoreDataAPI.modernName(name) {
        case "fetch": return receiver.map { .objects(of: $0, collection: true) }
        case "object", "existingObject", "registeredObject": return receiver.map { .objects(of: $0, collection: false) }
        case "newBackgroundContext": return .value(.context(.made(site(call), queue: .private)))
        case "insertNewObject":
            guard let into = Expressions.argument("into", of: call) else { return nil }
            return .objects(of: term(into) ?? .unknown, collection: false)
        case "performAndWait", "perform":
            if let trailing = call.trailingClosure { return closureResult(trailing) }
            return call.arguments.last.flatMap { term($0.expression) }
        case "map", "compactMap", "flatMap", "count", "contains", "forEach", "reduce", "allSatisfy": return nil
        default:
            if CoreDataAPI.elementMethods.contains(name) { return receiver.map { .element($0) } }
            if CoreDataAPI.subsequenceMethods.contains(name) { return receiver }
            return nil
        }
    }
}
