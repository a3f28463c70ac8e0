import SwiftSyntax

/// The transfer functions of statements, over one function body (or a property's
/// getter or lazy closure): `let` and `var` (a `var` holds the join of what it is
/// assigned), `if let` and `guard let`, `for … in`, assignments to properties (stores),
/// returns, calls, and closures, whose parameters take what the call they are handed
/// to gives them (`performBackgroundTask`'s block a context made for it, `forEach`'s an
/// element) and whose returns are the value of `performAndWait { }`.
///
/// Flow-insensitive inside a function: a body in which a local is read before a later
/// assignment changes it (a `var` assigned after its use) is read twice, so that it
/// holds the join of its values at every use; any other body once, which reads the same.
final class BodyInterpreter: SyntaxVisitor {
    private var locals: [String: ValueTerm?]
    private var closureScopes: [[String: ValueTerm?]] = []
    private var returns: [ValueTerm?] = [nil]
    private var closureResults: [SyntaxIdentifier: ValueTerm] = [:]
    /// The function's locals read so far, and whether one of them changed after it was
    /// read (then the body is read again, each read seeing every assignment).
    private var readLocals: Set<String> = []
    private var readBeforeAssigned = false
    private let selfTerm: ValueTerm?
    private let apiContexts: [String: APITable.ContextRow]
    private let placeOf: (any SyntaxProtocol) -> SourcePlace
    private(set) var stores: [(property: String, term: ValueTerm, place: SourcePlace)] = []
    private(set) var calls: [CallInput] = []

    /// `parameters`: the function's parameters by their names in the body, each the
    /// term of its argument label.
    init(parameters: [String: ValueTerm?], selfTerm: ValueTerm?, apiContexts: [String: APITable.ContextRow], place: @escaping (any SyntaxProtocol) -> SourcePlace) {
        locals = parameters
        self.selfTerm = selfTerm
        self.apiContexts = apiContexts
        placeOf = place
        super.init(viewMode: .sourceAccurate)
    }

    /// Reads `body` and returns the join of what it returns (a single-expression body
    /// returns its expression).
    func run(_ body: some SyntaxProtocol) -> ValueTerm? {
        let recorded = (stores: stores.count, calls: calls.count)
        walk(body)
        if readBeforeAssigned {
            stores.removeSubrange(recorded.stores...)
            calls.removeSubrange(recorded.calls...)
            returns = [nil]
            closureResults = [:]
            walk(body)
        }
        if returns[0] == nil, let single = Self.singleExpression(Syntax(body)) { return reader.term(single) }
        return returns[0]
    }

    var reader: TermReader {
        TermReader(
            lookup: { [unowned self] name in self.binding(name) }, closureResult: { [unowned self] in self.closureResults[$0.id] },
            selfTerm: selfTerm, apiContexts: apiContexts, site: { [unowned self] node in self.placeOf(node).described })
    }

    private func binding(_ name: String) -> ValueTerm?? {
        for scope in closureScopes.reversed() { if let bound = scope[name] { return bound } }
        readLocals.insert(name)
        return locals[name]
    }

    private func bind(_ name: String, _ term: ValueTerm?) {
        if !closureScopes.isEmpty, closureScopes[closureScopes.count - 1][name] != nil {
            closureScopes[closureScopes.count - 1][name] = .some(ValueTerm.joined(closureScopes[closureScopes.count - 1][name] ?? nil, term))
            return
        }
        let old = locals[name], new = ValueTerm.joined(old ?? nil, term)
        if old != .some(new), readLocals.contains(name) { readBeforeAssigned = true }
        locals[name] = .some(new)
    }

    static func isLiteral(_ expression: ExprSyntax) -> Bool {
        switch expression.kind {
        case .nilLiteralExpr, .stringLiteralExpr, .integerLiteralExpr, .floatLiteralExpr, .booleanLiteralExpr, .arrayExpr, .dictionaryExpr: true
        default: false
        }
    }

    static func singleExpression(_ body: Syntax) -> ExprSyntax? {
        if let initializer = body.as(InitializerClauseSyntax.self) { return initializer.value }
        var items: CodeBlockItemListSyntax?
        if let block = body.as(CodeBlockSyntax.self) { items = block.statements }
        if let block = body.as(AccessorBlockSyntax.self), case .getter(let list) = block.accessors { items = list }
        if let closure = body.as(ClosureExprSyntax.self) { items = closure.statements }
        if let list = body.as(CodeBlockItemListSyntax.self) { items = list }
        guard let items, items.count == 1, let item = items.first?.item else { return nil }
        return item.as(ExprSyntax.self)
    }

    // MARK: Statements

    override func visitPost(_ node: PatternBindingSyntax) {
        guard let name = node.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { return }
        bind(name, node.initializer.flatMap { reader.term($0.value) })
    }

    override func visitPost(_ node: OptionalBindingConditionSyntax) {
        guard let name = node.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { return }
        let value = node.initializer.map { reader.term($0.value) } ?? binding(name) ?? nil
        bind(name, value)
    }

    override func visit(_ node: ForStmtSyntax) -> SyntaxVisitorContinueKind {
        if let name = node.pattern.as(IdentifierPatternSyntax.self)?.identifier.text {
            bind(name, reader.term(node.sequence).map { .element($0) })
        }
        return .visitChildren
    }

    override func visitPost(_ node: SequenceExprSyntax) {
        let elements = Array(node.elements)
        guard elements.count == 3, elements[1].is(AssignmentExprSyntax.self) else { return }
        let value = reader.term(elements[2])
        if let reference = elements[0].as(DeclReferenceExprSyntax.self), binding(reference.baseName.text) != nil {
            bind(reference.baseName.text, value)
            return
        }
        guard let property = Expressions.lastName(elements[0]) else { return }
        // A literal (`nil`, a string, a number) holds no context: nothing to store.
        if value == nil, Self.isLiteral(elements[2]) { return }
        stores.append((property, value ?? .unknown, placeOf(elements[0])))
    }

    override func visitPost(_ node: ReturnStmtSyntax) {
        // `return nil` or a literal adds nothing to what the function returns.
        guard let expression = node.expression, !Self.isLiteral(expression) else { return }
        returns[returns.count - 1] = ValueTerm.joined(returns[returns.count - 1], reader.term(expression) ?? .unknown)
    }

    override func visitPost(_ node: FunctionCallExprSyntax) {
        guard !node.arguments.isEmpty || node.trailingClosure != nil, let name = Expressions.lastName(node.calledExpression) else { return }
        let arguments = reader.arguments(of: node)
        // Kept small: a call that hands nothing followed is kept by its name alone.
        let isOpaque = arguments.allSatisfy { $0.term == .unknown }
        calls.append(CallInput(name: name, arguments: isOpaque ? [] : arguments, isOpaque: isOpaque))
    }

    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }

    // MARK: Closures

    override func visit(_ node: ClosureExprSyntax) -> SyntaxVisitorContinueKind {
        var scope: [String: ValueTerm?] = [:]
        let names = ClosurePlacement.parameters(of: node).map(\.text)
        let first = firstParameter(of: node)
        for (index, name) in names.enumerated() { scope[name] = .some(index == 0 ? first : nil) }
        if let captures = node.signature?.capture?.items {
            for capture in captures {
                let name = capture.name.text
                scope[name] = .some(capture.initializer.flatMap { reader.term($0.value) } ?? binding(name) ?? nil)
            }
        }
        closureScopes.append(scope)
        returns.append(nil)
        return .visitChildren
    }

    override func visitPost(_ node: ClosureExprSyntax) {
        var result = returns.removeLast()
        if result == nil, let single = Self.singleExpression(Syntax(node)) { result = reader.term(single) }
        closureScopes.removeLast()
        if let result { closureResults[node.id] = result }
    }

    /// What the closure's first parameter holds: a context made for
    /// `performBackgroundTask`'s block, an element of the objects `forEach` walks.
    private func firstParameter(of closure: ClosureExprSyntax) -> ValueTerm? {
        guard let (call, _) = ClosurePlacement.call(receiving: closure), let member = call.calledExpression.as(MemberAccessExprSyntax.self) else { return nil }
        let method = member.declName.baseName.text
        if method == "performBackgroundTask" { return .value(.context(.made(placeOf(closure).described, queue: .private))) }
        if CoreDataAPI.synchronousClosureMethods.contains(method), let base = member.base, let objects = reader.term(base) { return .element(objects) }
        return nil
    }
}
