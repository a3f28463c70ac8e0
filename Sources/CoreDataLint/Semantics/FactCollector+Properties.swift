import SwiftSyntax

/// Properties: context declarations, getters, confined uses of `self` in a context
/// extension, and the queue evidence a setup gives.
extension FactCollector {
    /// Inside `extension NSManagedObjectContext { }`, outside any function.
    var isInContextExtension: Bool {
        types.last?.name == CoreDataAPI.contextType && !facts.declaredTypes.contains(CoreDataAPI.contextType) && functions.isEmpty
    }

    /// A context extension member of this name is one of the rules' own: an overload of
    /// Core Data's `save()` or `fetch(_:)` is already a use, and reported once.
    static func isCoreDataMember(_ name: String) -> Bool {
        CoreDataAPI.contextMethods.contains(name) || CoreDataAPI.contextStateProperties.contains(name)
    }

    /// A computed property's getter: the whole block, or its `get { }`.
    static func getter(of accessors: AccessorBlockSyntax) -> Syntax {
        if case .accessors(let list) = accessors.accessors, let get = list.first(where: { $0.accessorSpecifier.tokenKind == .keyword(.get) })?.body {
            return Syntax(get)
        }
        return Syntax(accessors)
    }

    /// The first member Core Data confines to a context's queue that `body` uses on
    /// `self` (`userInfo`, `self.hasChanges`, `fetch(request)`, `try save()`), straight
    /// in the body: not inside a closure that runs elsewhere (a `perform { }` block).
    static func confinedUseOfSelf(in body: Syntax) -> (String, Syntax)? {
        for token in body.tokens(viewMode: .sourceAccurate) {
            // The kind's payload is the token's text: one kind formed, not two.
            guard case .identifier(let name) = token.tokenKind else { continue }
            let isMethod = CoreDataAPI.contextMethods.contains(name), isState = CoreDataAPI.contextStateProperties.contains(name)
            guard isMethod || isState, let reference = token.parent?.as(DeclReferenceExprSyntax.self) else { continue }
            var expression = ExprSyntax(reference)
            if let member = reference.parent?.as(MemberAccessExprSyntax.self) {
                // `self.userInfo`; `other.userInfo` is another context's.
                guard member.declName.id == reference.id, Expressions.isSelf(member.base) else { continue }
                expression = ExprSyntax(member)
            }
            let isCalled = expression.parent?.as(FunctionCallExprSyntax.self)?.calledExpression.id == expression.id
            // A method is a use when called; a state property when read (its setter is thread-safe).
            guard isMethod ? isCalled : (!isCalled && !Expressions.isAssignmentTarget(expression)) else { continue }
            guard runsStraight(expression, in: body) else { continue }
            return (name, Syntax(expression))
        }
        return nil
    }

    /// Whether `node` runs where `body` does: no closure between them runs elsewhere.
    static func runsStraight(_ node: some SyntaxProtocol, in body: Syntax) -> Bool {
        var current = Syntax(node).parent
        while let syntax = current, syntax.id != body.id {
            if syntax.is(FunctionDeclSyntax.self) { return false }
            if let closure = syntax.as(ClosureExprSyntax.self), case .here = ClosurePlacement.shape(of: closure) {} else if syntax.is(ClosureExprSyntax.self) {
                return false
            }
            current = syntax.parent
        }
        return true
    }

    func contextDeclaration(_ name: String, _ binding: PatternBindingSyntax, in variable: VariableDeclSyntax) -> ContextDeclaration? {
        let declaredAsContext = binding.typeAnnotation.map { TypeNames.base(of: $0.type) == CoreDataAPI.contextType } ?? false
        let isComputed = binding.accessorBlock.map { accessors in
            if case .getter = accessors.accessors { return true }
            return false
        } ?? false
        let kind: ContextDeclaration.Kind = isComputed ? .computedProperty : .storedProperty
        if let wrapper = FactCollector.contextWrapper(variable, declaredAsContext: declaredAsContext) {
            // `@Environment(\.managedObjectContext)`, `@Injected(\.viewContext)`: the
            // context the API table says the wrapper gives (SwiftUI's is the
            // container's viewContext); unknown for a wrapper it has no row of.
            return ContextDeclaration(name: name, kind: kind, evidence: .name(wrapper), place: place(binding))
        }
        let setup = Syntax(binding.initializer?.value) ?? Syntax(binding.accessorBlock)
        let evidence = setup.map(Self.evidence(of:))
        if declaredAsContext {
            return ContextDeclaration(
                name: name, kind: kind, evidence: evidence == .unknown ? nil : evidence, place: place(binding),
                makesNew: isComputed && Self.getterMakesContext(binding.accessorBlock))
        }
        if binding.typeAnnotation == nil, let value = binding.initializer?.value, Self.isContextExpression(value), let evidence, evidence != .unknown {
            return ContextDeclaration(name: name, kind: kind, evidence: evidence, place: place(binding))
        }
        return nil
    }

    /// `var savingContext: NSManagedObjectContext { storeContainer.newBackgroundContext() }`:
    /// a getter that is one call making a context, so that each read is a new context.
    static func getterMakesContext(_ accessors: AccessorBlockSyntax?) -> Bool {
        guard let accessors, case .getter(let items) = accessors.accessors, items.count == 1, let item = items.first?.item,
            let expression = (item.as(ReturnStmtSyntax.self)?.expression ?? item.as(ExprSyntax.self)).map(Expressions.unwrapped),
            let call = expression.as(FunctionCallExprSyntax.self), let name = Expressions.lastName(call.calledExpression)
        else { return false }
        return name == "newBackgroundContext" || name == CoreDataAPI.contextType
    }

    /// The queue a property's setup, a function's body or an assigned value tells.
    static func evidence(of setup: Syntax) -> QueueEvidence {
        var byConcurrencyType: Set<ContextQueue> = []
        var byContainer: Set<ContextQueue> = []
        for token in setup.tokens(viewMode: .sourceAccurate) {
            // The kind's payload is the token's text: one kind formed, not two.
            guard case .identifier(let text) = token.tokenKind else { continue }
            switch text {
            // Swift 2's spellings too (`.MainQueueConcurrencyType`): the same enum cases.
            case "mainQueueConcurrencyType", "MainQueueConcurrencyType": byConcurrencyType.insert(.main)
            case "privateQueueConcurrencyType", "PrivateQueueConcurrencyType": byConcurrencyType.insert(.private)
            default: if let queue = CoreDataAPI.queue(named: text) { byContainer.insert(queue) }
            }
        }
        let named = byConcurrencyType.isEmpty ? byContainer : byConcurrencyType
        if named.count == 1, let queue = named.first { return .queue(queue) }
        if named.count > 1 { return .unknown }
        if let expression = setup.as(ExprSyntax.self).map(Expressions.unwrapped) {
            if let call = expression.as(FunctionCallExprSyntax.self), let name = Expressions.lastName(call.calledExpression) { return .name(name) }
            if let name = Expressions.lastName(expression) { return .name(name) }
        }
        if let returned = Self.singleReturnedName(setup) { return .name(returned) }
        return .unknown
    }

    /// `{ return self.storeContainer.viewContext }` or `{ stack.mainContext }`: the last
    /// name of the single expression a getter or closure returns.
    static func singleReturnedName(_ setup: Syntax) -> String? {
        var items: CodeBlockItemListSyntax?
        if let block = setup.as(AccessorBlockSyntax.self), case .getter(let list) = block.accessors { items = list }
        if let block = setup.as(CodeBlockSyntax.self) { items = block.statements }
        if let call = setup.as(FunctionCallExprSyntax.self), let closure = call.calledExpression.as(ClosureExprSyntax.self) { items = closure.statements }
        guard let items, items.count == 1, let item = items.first?.item else { return nil }
        let expression = item.as(ReturnStmtSyntax.self)?.expression ?? item.as(ExprSyntax.self)
        return expression.map(Expressions.unwrapped).flatMap(Expressions.lastName)
    }

    /// `@Environment(\.managedObjectContext) var viewContext`, `@Injected(\.context) var
    /// context: NSManagedObjectContext`: the wrapper's key in the API table
    /// (`APITable.wrapperKey`), for a property declared a context or whose key path
    /// names one.
    static func contextWrapper(_ variable: VariableDeclSyntax, declaredAsContext: Bool) -> String? {
        guard !variable.attributes.isEmpty else { return nil }
        for element in variable.attributes {
            guard let attribute = element.as(AttributeSyntax.self), let key = APITable.wrapperKey(attribute) else { continue }
            if declaredAsContext || key.contains("ontext") { return key }
        }
        return nil
    }

    static func isContextExpression(_ expression: ExprSyntax) -> Bool {
        if let member = expression.as(MemberAccessExprSyntax.self) { return member.declName.baseName.text == "viewContext" }
        guard let call = expression.as(FunctionCallExprSyntax.self) else { return false }
        return Expressions.lastName(call.calledExpression).map { $0 == "newBackgroundContext" || $0 == CoreDataAPI.contextType } ?? false
    }
}
