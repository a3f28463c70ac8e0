import SwiftSyntax

extension DataflowFacts {
    /// Reads one file's functions, initializers and properties through the
    /// `BodyInterpreter`: the inputs of their summaries.
    init(_ tree: SourceFileSyntax, lines: LineTable, fileName: String, apiTable: APITable = .builtIn) {
        let collector = DataflowCollector(lines: lines, fileName: fileName, apiTable: apiTable)
        collector.walk(tree)
        self = collector.facts
    }
}

/// Walks a file's declarations (types, extensions, functions, initializers and
/// properties), and runs the interpreter over each body once.
final class DataflowCollector: SyntaxVisitor {
    private(set) var facts = DataflowFacts()
    private var types: [(name: String, isContextExtension: Bool)] = []
    private let lines: LineTable
    private let fileName: String
    private let apiContexts: [String: APITable.ContextRow]

    init(lines: LineTable, fileName: String, apiTable: APITable) {
        self.lines = lines
        self.fileName = fileName
        var rows: [String: APITable.ContextRow] = [:]
        for row in apiTable.contexts where rows[row.name] == nil { rows[row.name] = row }
        apiContexts = rows
        super.init(viewMode: .sourceAccurate)
    }

    private func place(_ node: some SyntaxProtocol) -> SourcePlace {
        SourcePlace(file: fileName, line: lines.line(of: node.positionAfterSkippingLeadingTrivia.utf8Offset))
    }

    // MARK: Types

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind { types.append((node.name.text, false)); return .visitChildren }
    override func visitPost(_ node: ClassDeclSyntax) { types.removeLast() }
    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind { types.append((node.name.text, false)); return .visitChildren }
    override func visitPost(_ node: StructDeclSyntax) { types.removeLast() }
    override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind { types.append((node.name.text, false)); return .visitChildren }
    override func visitPost(_ node: ActorDeclSyntax) { types.removeLast() }
    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind { types.append((node.name.text, false)); return .visitChildren }
    override func visitPost(_ node: EnumDeclSyntax) { types.removeLast() }
    override func visit(_ node: ProtocolDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
        let name = TypeNames.base(of: node.extendedType) ?? Expressions.trimmedText(node.extendedType)
        types.append((name, name == CoreDataAPI.contextType))
        return .visitChildren
    }
    override func visitPost(_ node: ExtensionDeclSyntax) { types.removeLast() }

    private var selfTerm: ValueTerm? { types.last?.isContextExtension == true ? .parameter("self") : nil }

    private func interpreter(_ parameters: [String: ValueTerm?]) -> BodyInterpreter {
        BodyInterpreter(parameters: parameters, selfTerm: selfTerm, apiContexts: apiContexts, place: { [unowned self] in self.place($0) })
    }

    // MARK: Functions

    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
        guard let body = node.body else { return .skipChildren }
        let signature = Self.parameters(node.signature.parameterClause.parameters)
        let returned = node.signature.returnClause?.type
        var input = FunctionInput(
            name: node.name.text, labels: signature.labels, defaulted: signature.defaulted, type: types.last?.name,
            returnType: returned.flatMap(Self.element),
            returnsCollection: returned.map { Self.element(of: $0) != TypeNames.base(of: $0) } ?? false, place: place(node.name))
        if types.last?.isContextExtension == true { recordSelfUses(node.name.text, isProperty: false, in: Syntax(body)) }
        let interpreter = self.interpreter(signature.bindings)
        input.result = returned == nil ? nil : interpreter.run(body)
        if returned == nil { _ = interpreter.run(body) }
        record(input, interpreter)
        return .skipChildren
    }

    override func visit(_ node: InitializerDeclSyntax) -> SyntaxVisitorContinueKind {
        guard let body = node.body, let type = types.last?.name else { return .skipChildren }
        let signature = Self.parameters(node.signature.parameterClause.parameters)
        let input = FunctionInput(name: type, labels: signature.labels, defaulted: signature.defaulted, type: type, place: place(node.initKeyword))
        let interpreter = self.interpreter(signature.bindings)
        _ = interpreter.run(body)
        record(input, interpreter)
        return .skipChildren
    }

    private func record(_ input: FunctionInput, _ interpreter: BodyInterpreter) {
        let index = facts.functions.count
        facts.functions.append(input)
        for store in interpreter.stores { facts.stores.append(StoreInput(property: store.property, term: store.term, function: index, place: store.place)) }
        facts.calls.append(contentsOf: interpreter.calls)
    }

    /// Each parameter's label, whether it has a default value, and its name in the body
    /// bound to the term of its label.
    static func parameters(_ list: FunctionParameterListSyntax) -> (labels: [String], defaulted: Set<String>, bindings: [String: ValueTerm?]) {
        var labels: [String] = [], defaulted: Set<String> = [], bindings: [String: ValueTerm?] = [:]
        for parameter in list {
            let label = parameter.firstName.text
            let name = parameter.secondName?.text ?? label
            labels.append(label)
            if parameter.defaultValue != nil { defaulted.insert(label) }
            bindings[name] = .some(.parameter(label))
        }
        return (labels, defaulted, bindings)
    }

    /// The members of `self` a context extension's member uses straight: `self.name`
    /// or a bare `name`, read, called or assigned, outside closures that run elsewhere.
    private func recordSelfUses(_ member: String, isProperty: Bool, in body: Syntax) {
        var uses: [String] = []
        for token in body.tokens(viewMode: .sourceAccurate) {
            guard case .identifier(let name) = token.tokenKind, name != member, let reference = token.parent?.as(DeclReferenceExprSyntax.self) else { continue }
            var expression = ExprSyntax(reference)
            if let access = reference.parent?.as(MemberAccessExprSyntax.self), access.declName.id == reference.id {
                guard Expressions.isSelf(access.base) else { continue }
                expression = ExprSyntax(access)
            }
            guard !uses.contains(name), FactCollector.runsStraight(expression, in: body) else { continue }
            uses.append(name)
        }
        guard !uses.isEmpty else { return }
        facts.extensionMembers.append(ExtensionMemberInput(member: member, isProperty: isProperty, uses: uses, place: place(body)))
    }

    // MARK: Properties

    override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
        guard let type = types.last?.name else { return .skipChildren }
        let isLazy = node.modifiers.contains { $0.name.tokenKind == .keyword(.lazy) }
        for binding in node.bindings {
            guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { continue }
            let declared = binding.typeAnnotation?.type
            var input = PropertyInput(
                name: name, type: type, kind: .stored, declaredType: declared.flatMap(Self.element),
                declaredCollection: declared.map { Self.element(of: $0) != TypeNames.base(of: $0) } ?? false, place: place(binding.pattern))
            if let accessors = binding.accessorBlock {
                if types.last?.isContextExtension == true { recordSelfUses(name, isProperty: true, in: Syntax(accessors)) }
                input.kind = .computed
                input.term = getter(accessors)
            } else if let initializer = binding.initializer {
                input.kind = isLazy ? .lazy : .stored
                input.term = interpreter([:]).run(initializer)
            }
            facts.properties.append(input)
        }
        return .skipChildren
    }

    /// The element of `[T]`, `Set<T>`, `NSOrderedSet`-free collections, or the type itself.
    static func element(of type: TypeSyntax) -> String? {
        if let element = TypeNames.element(of: type) { return element }
        if let base = TypeNames.base(of: type), base == "Set" || base == "Array" { return TypeNames.genericArgument(of: Self.unwrappedType(type)) }
        return TypeNames.base(of: type)
    }

    private static func unwrappedType(_ type: TypeSyntax) -> TypeSyntax {
        if let optional = type.as(OptionalTypeSyntax.self) { return unwrappedType(optional.wrappedType) }
        if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return unwrappedType(unwrapped.wrappedType) }
        return type
    }

    private func getter(_ accessors: AccessorBlockSyntax) -> ValueTerm? {
        switch accessors.accessors {
        case .getter: return interpreter([:]).run(accessors)
        case .accessors(let list):
            guard let get = list.first(where: { $0.accessorSpecifier.tokenKind == .keyword(.get) }), let body = get.body else { return nil }
            return interpreter([:]).run(body)
        }
    }
}
