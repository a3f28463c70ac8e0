import CtxdebugHelpers
import SwiftSyntax

extension FileFacts {
    /// Reads the facts of one file in one walk. `fileName` names the file in messages.
    /// `text`, the tree's source when at hand, lets the walk skip bodies whose bytes
    /// cannot hold what it looks for.
    init(_ tree: SourceFileSyntax, lines: LineTable, fileName: String, text: String? = nil, apiTable: APITable = .builtIn) {
        let collector = FactCollector(lines: lines, fileName: fileName, text: text, apiTable: apiTable)
        collector.walk(tree)
        self = collector.facts
        // Files that name no context, fetch or managed object hold nothing the analysis follows.
        if text.map({ TextSearch.foundationContains("ontext", in: $0) || TextSearch.foundationContains("NSManaged", in: $0) }) ?? true {
            dataflow = DataflowFacts(tree, lines: lines, fileName: fileName, apiTable: apiTable)
        }
    }
}

final class FactCollector: SyntaxVisitor {
    // Unchecked exclusivity on the state the walk reads at every node, as in
    // `SemanticWalker`: one file, one thread, and no access to these overlaps another.
    @exclusivity(unchecked) var facts = FileFacts()
    let lines: LineTable
    let fileName: String
    /// The types being read, innermost last, and whether each is `@MainActor`.
    @exclusivity(unchecked) var types: [(name: String, isMainActor: Bool)] = []
    /// The functions being read, innermost last, with their locals and their context
    /// parameters (name to argument label).
    @exclusivity(unchecked) var functions: [(name: String, locals: Set<String>, initParameters: [String: String])] = []
    /// The value of each `let` of the innermost function declared once with one
    /// (`let child = stack.makeEditingContext()`); nil for a name declared again.
    @exclusivity(unchecked) var letValues: [[String: ExprSyntax?]] = []
    /// The value of each `if let` or `guard let` binding of the innermost function, kept
    /// apart from its `let`s (nil for a name bound again), and the names of its object
    /// parameters (`Entity` or `[Entity]`; none for an initializer).
    @exclusivity(unchecked) var bindingValues: [[String: ExprSyntax?]] = []
    @exclusivity(unchecked) var objectParameterNames: [Set<String>] = []
    /// Whether each function declaration being read has a context parameter (its
    /// `initParameters` may have been emptied since).
    @exclusivity(unchecked) var functionTakesContext: [Bool] = []
    /// Where each function being read is in `facts.functions` (-1: none).
    @exclusivity(unchecked) var functionIndexes: [Int32] = []
    /// The placement of the code straight inside each closure of the file met so far
    /// (see `placementOfCall(_:)`).
    @exclusivity(unchecked) var closurePlacements: [SyntaxIdentifier: CallPlacement] = [:]
    /// Each distinct argument labels' number in `facts.labelTable`, and the number of
    /// none (the most frequent), kept apart from the table's hashing.
    @exclusivity(unchecked) var labelNumbers: [String: Int32] = [:]
    @exclusivity(unchecked) var emptyLabels: Int32?

    /// The source of the tree being walked, when at hand.
    let text: String?

    /// Where other people's callbacks run.
    let apiTable: APITable

    init(lines: LineTable, fileName: String, text: String? = nil, apiTable: APITable = .builtIn) {
        self.lines = lines
        self.fileName = fileName
        self.text = text
        self.apiTable = apiTable
        super.init(viewMode: .sourceAccurate)
    }

    /// Whether the source bytes of `node` may hold one of `words` (lowercase ASCII,
    /// matched as written): true when the source is not at hand. A token's text is
    /// written in the source as it is, so a node without the bytes has no such token.
    func mayContain(_ node: some SyntaxProtocol, anyOf words: [StaticString]) -> Bool {
        mayContain(from: node.positionAfterSkippingLeadingTrivia.utf8Offset, to: node.endPositionBeforeTrailingTrivia.utf8Offset, anyOf: words)
    }

    /// `mayContain(_:anyOf:)` for the source bytes from UTF-8 offset `start` to `end`.
    func mayContain(from start: Int, to end: Int, anyOf words: [StaticString]) -> Bool {
        guard let text else { return true }
        return text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard start >= 0, start <= end, end <= bytes.count else { return true }
            for word in words {
                let count = word.utf8CodeUnitCount
                guard count > 0, end - start >= count else { continue }
                let letters = UnsafeBufferPointer(start: word.utf8Start, count: count)
                var index = start
                while index + count <= end {
                    if bytes[index] == letters[0] {
                        var matched = 1
                        while matched < count, bytes[index + matched] == letters[matched] { matched += 1 }
                        if matched == count { return true }
                    }
                    index += 1
                }
            }
            return false
        } ?? true
    }

    func place(_ node: some SyntaxProtocol) -> SourcePlace {
        SourcePlace(file: fileName, line: lines.line(of: node.positionAfterSkippingLeadingTrivia.utf8Offset))
    }

    // MARK: Types

    func enterType(_ name: String, attributes: AttributeListSyntax, inheritance: InheritanceClauseSyntax?, declares: Bool = true) {
        if declares { facts.declaredTypes.insert(name) }
        let inherited = inheritance?.inheritedTypes.compactMap { TypeNames.base(of: $0.type) } ?? []
        if !inherited.isEmpty { facts.conformances[name, default: []] += inherited }
        let isMainActor = Attributes.has("MainActor", in: attributes) || facts.mainActorTypes.contains(name)
        if isMainActor { facts.mainActorTypes.insert(name) }
        types.append((name, isMainActor))
    }

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        if let first = node.inheritanceClause?.inheritedTypes.first.flatMap({ TypeNames.base(of: $0.type) }) {
            facts.superclasses[node.name.text] = first
        }
        enterType(node.name.text, attributes: node.attributes, inheritance: node.inheritanceClause)
        return .visitChildren
    }

    override func visitPost(_ node: ClassDeclSyntax) { types.removeLast() }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
        enterType(node.name.text, attributes: node.attributes, inheritance: node.inheritanceClause)
        return .visitChildren
    }

    override func visitPost(_ node: StructDeclSyntax) { types.removeLast() }

    override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind {
        facts.actorTypes.insert(node.name.text)
        enterType(node.name.text, attributes: node.attributes, inheritance: node.inheritanceClause)
        return .visitChildren
    }

    override func visitPost(_ node: ActorDeclSyntax) { types.removeLast() }

    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
        enterType(node.name.text, attributes: node.attributes, inheritance: node.inheritanceClause)
        return .visitChildren
    }

    override func visitPost(_ node: EnumDeclSyntax) { types.removeLast() }

    override func visit(_ node: ProtocolDeclSyntax) -> SyntaxVisitorContinueKind {
        enterType(node.name.text, attributes: node.attributes, inheritance: node.inheritanceClause)
        return .visitChildren
    }

    override func visitPost(_ node: ProtocolDeclSyntax) { types.removeLast() }

    override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
        enterType(
            TypeNames.base(of: node.extendedType) ?? node.extendedType.trimmedDescription, attributes: node.attributes, inheritance: node.inheritanceClause,
            declares: false)
        return .visitChildren
    }

    override func visitPost(_ node: ExtensionDeclSyntax) { types.removeLast() }

    // MARK: Properties

    override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
        guard node.parent?.is(MemberBlockItemSyntax.self) == true else {
            for binding in node.bindings {
                if let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text, !functions.isEmpty {
                    let (declared, _) = functions[functions.count - 1].locals.insert(name)
                    let value = node.bindingSpecifier.tokenKind == .keyword(.let) && declared ? binding.initializer?.value : nil
                    letValues[letValues.count - 1][name] = .some(value)
                }
            }
            return .visitChildren
        }
        for binding in node.bindings {
            guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { continue }
            if isInContextExtension, !Self.isCoreDataMember(name), let accessors = binding.accessorBlock,
                let (confined, at) = Self.confinedUseOfSelf(in: Self.getter(of: accessors))
            {
                facts.contextExtensionUses.append(ContextExtensionUse(member: name, isProperty: true, confined: confined, place: place(at)))
            }
            if let type = types.last?.name { facts.typeProperties.append(TypedName(type: type, name: name)) }
            if name == "unownedExecutor", let type = types.last?.name { facts.customExecutorTypes.insert(type) }
            if !node.modifiers.isEmpty, node.modifiers.contains(where: { let text = $0.name.text; return text == "public" || text == "open" }),
                TextSearch.foundationContains("ontext", in: name)
            {
                facts.contextNameReads[name] = false
            }
            if var declaration = contextDeclaration(name, binding, in: node) {
                declaration.type = types.last?.name
                declaration.isRequirement = node.parent?.parent?.parent?.parent?.is(ProtocolDeclSyntax.self) == true
                facts.contextDeclarations.append(declaration)
            } else if TextSearch.foundationContains("ontext", in: name) {
                facts.otherContextNamedProperties.insert(name)
            }
        }
        return .visitChildren
    }

    // MARK: Functions

    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
        let name = node.name.text
        let type = types.last
        let parameters = Self.readParameters(node.signature.parameterClause.parameters, hasBody: node.body != nil)
        var contextParameters = parameters.contextParameters
        let takesContext = !contextParameters.isEmpty
        // A protocol's requirement is the same method as its implementations, not another.
        if node.body != nil { recordFunction(node, parameters) }
        if let returned = node.signature.returnClause?.type {
            readReturnType(returned, of: node)
        }
        if isInContextExtension, !Self.isCoreDataMember(name), let body = node.body, let (confined, at) = Self.confinedUseOfSelf(in: Syntax(body)) {
            facts.contextExtensionUses.append(ContextExtensionUse(member: name, isProperty: false, confined: confined, place: place(at)))
        }
        if !contextParameters.isEmpty, let returned = node.signature.returnClause?.type, let body = node.body {
            recordObjectReturn(name, returned, contextParameters, body)
        }
        if let body = node.body { recordClosureParameterQueues(name, parameters.closures, body) }
        // A @MainActor or async function does not run on its caller's queue: its use of a
        // context parameter is not the caller's.
        if Attributes.has("MainActor", in: node.attributes) || type?.isMainActor == true || node.signature.effectSpecifiers?.asyncSpecifier != nil {
            contextParameters = [:]
        }
        // Nor is the use of one that asks which kind of context it was handed or which
        // thread it runs on (`switch context.concurrencyType`, `Thread.isMainThread`): it
        // may use the context straight only where that is right, and perform elsewhere.
        if !contextParameters.isEmpty, let body = node.body,
            body.tokens(viewMode: .sourceAccurate).contains(where: { $0.text == "concurrencyType" || $0.text == "isMainThread" })
        {
            contextParameters = [:]
        }
        functions.append((name, parameters.locals, contextParameters))
        functionTakesContext.append(takesContext)
        functionIndexes.append(node.body != nil ? Int32(facts.functions.count - 1) : -1)
        letValues.append([:])
        bindingValues.append([:])
        objectParameterNames.append(Set(parameters.objectParameters.values))
        return .visitChildren
    }

    override func visitPost(_ node: FunctionDeclSyntax) {
        if let returned = node.signature.returnClause?.type, let body = node.body, let function = functions.last, function.initParameters.isEmpty,
            functionTakesContext.last == false
        {
            recordPropertyObjectReturn(node.name.text, returned, body, locals: function.locals)
        }
        functions.removeLast()
        functionTakesContext.removeLast()
        functionIndexes.removeLast()
        letValues.removeLast()
        bindingValues.removeLast()
        objectParameterNames.removeLast()
    }

    override func visit(_ node: InitializerDeclSyntax) -> SyntaxVisitorContinueKind {
        var parameters: [String: String] = [:]
        var locals: Set<String> = []
        for parameter in node.signature.parameterClause.parameters {
            let name = (parameter.secondName ?? parameter.firstName).text
            if TypeNames.base(of: parameter.type) == CoreDataAPI.contextType {
                parameters[name] = parameter.firstName.text
            } else {
                locals.insert(name)
            }
        }
        functions.append(("init", locals, parameters))
        functionIndexes.append(-1)
        letValues.append([:])
        bindingValues.append([:])
        objectParameterNames.append([])
        return .visitChildren
    }

    override func visitPost(_ node: InitializerDeclSyntax) {
        functions.removeLast()
        functionIndexes.removeLast()
        letValues.removeLast()
        bindingValues.removeLast()
        objectParameterNames.removeLast()
    }

    /// `guard let conversation = try? context.existingObject(with: id) as? Conversation`:
    /// kept apart from the `let`s, for the objects a call hands on.
    override func visit(_ node: OptionalBindingConditionSyntax) -> SyntaxVisitorContinueKind {
        guard !bindingValues.isEmpty, let name = node.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { return .visitChildren }
        let isNew = bindingValues[bindingValues.count - 1][name] == nil
        let value = node.bindingSpecifier.tokenKind == .keyword(.let) && isNew ? node.initializer?.value : nil
        bindingValues[bindingValues.count - 1][name] = .some(value)
        return .visitChildren
    }

    // MARK: Assignments

    /// `target.property = value`, `self.property = value`, `property = value`.
    override func visitPost(_ node: SequenceExprSyntax) {
        guard node.elements.count == 3 else { return }
        let elements = Array(node.elements)
        guard elements[1].is(AssignmentExprSyntax.self) else { return }
        let target = elements[0], value = Expressions.unwrapped(elements[2])
        let property: String
        let receiverType: String?
        if let member = target.as(MemberAccessExprSyntax.self) {
            property = member.declName.baseName.text
            receiverType = Expressions.isSelf(member.base) ? types.last?.name : member.base.flatMap(localType)
        } else if let reference = target.as(DeclReferenceExprSyntax.self), functions.last?.locals.contains(reference.baseName.text) != true {
            property = reference.baseName.text
            receiverType = types.last?.name
        } else {
            return
        }
        if let function = functions.last, function.name == "init", let reference = value.as(DeclReferenceExprSyntax.self),
            let label = function.initParameters[reference.baseName.text], let type = types.last?.name
        {
            facts.initStores.append(InitParameterStore(type: type, label: label, property: property))
            return
        }
        // A literal is no context: nothing to learn, nothing to keep.
        guard !Self.isLiteral(value) else { return }
        var assigned = value
        if let reference = value.as(DeclReferenceExprSyntax.self), functions.last?.locals.contains(reference.baseName.text) == true {
            // A `let` declared once with a value holds that value; another local or a
            // parameter, the first pass cannot tell.
            guard let local = letValues.last?[reference.baseName.text], let initial = local.map(Expressions.unwrapped),
                !initial.is(DeclReferenceExprSyntax.self)
            else {
                facts.contextAssignments.append(
                    ContextAssignment(property: property, evidence: .unknown, valueText: "", place: place(target), receiverType: receiverType))
                return
            }
            assigned = initial
        }
        // The text is for citations, and only a queue told is cited.
        let evidence = Self.evidence(of: Syntax(assigned))
        facts.contextAssignments.append(
            ContextAssignment(
                property: property, evidence: evidence, valueText: evidence == .unknown ? "" : Expressions.text(assigned), place: place(target),
                receiverType: receiverType))
    }

    // MARK: Calls

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        recordParameterUse(node)
        let callee = node.calledExpression
        if let reference = callee.as(DeclReferenceExprSyntax.self), reference.baseName.text.first?.isUppercase == true {
            recordInitArguments(node, type: reference.baseName.text)
            if reference.baseName.text == "URLSession" { recordSessionDelegate(node) }
            return .visitChildren
        }
        guard let name = Expressions.lastName(callee), Self.startsLikeMember(name) else { return .visitChildren }
        if name == "addObserver" { recordStringSelector(node) }
        recordIsolationSetting(node, name: name)
        var receiverType: String?
        if let member = callee.as(MemberAccessExprSyntax.self), let base = member.base, !Expressions.isSelf(base),
            let type = base.as(DeclReferenceExprSyntax.self)?.baseName.text, type.first?.isUppercase == true
        {
            // `Type.method()`: a static or class method, the project's when that type
            // declares it (the call graph checks), else an API's.
            receiverType = type
        }
        var objectArguments: [String: QueueEvidence] = [:]
        var parameterArguments: [String: String] = [:]
        // One pass over the arguments: their labels ("_:context:", in
        // `ParameterLabels.joined`'s form), and the objects a name (a `let`, a parameter)
        // may hand on.
        var labels = ""
        for argument in node.arguments {
            let label = argument.label?.text ?? "_"
            labels += label
            labels += ":"
            let expression = argument.expression
            if let referenced = Self.functionValue(expression) { facts.escapingNames.insert(referenced) }
            guard expression.is(DeclReferenceExprSyntax.self) else { continue }
            if let evidence = fetchedObjectsEvidence(expression) { objectArguments[label] = evidence }
            if let parameter = objectParameterArgument(expression) { parameterArguments[label] = parameter }
        }
        facts.calls.append(
            CallFact(
                callee: name, receiverType: receiverType, caller: functions.last?.name, callerType: types.last?.name,
                placement: refined(placementOfCall(node), node), place: place(node), objectArguments: objectArguments,
                parameterArguments: parameterArguments, labels: labelNumber(labels),
                trailingClosures: (node.trailingClosure == nil ? 0 : 1) + node.additionalTrailingClosures.count, callerFunction: functionIndexes.last ?? -1))
        return .visitChildren
    }

    /// A read of a name like a context's: whether it only uses a confined member, inserts
    /// or is assigned (see `FileFacts.contextNameReads`).
    override func visit(_ node: DeclReferenceExprSyntax) -> SyntaxVisitorContinueKind {
        // The token's length, read without making its text: most names are shorter; and
        // its bytes in the source, when at hand: most longer names have no "ontext".
        let token = node.baseName
        let length = token.trimmedLength.utf8Length
        guard length >= 7 else { return .visitChildren }
        let start = token.positionAfterSkippingLeadingTrivia.utf8Offset
        guard mayContain(from: start, to: start + length, anyOf: ["ontext"]) else { return .visitChildren }
        let name = token.text
        guard Self.isContextLikeName(name) else { return .visitChildren }
        // `(reads[name] ?? true) && safe`, with one lookup: a name already read unsafely
        // stays so, without reading this use.
        let known = facts.contextNameReads[name]
        guard known != false else { return .visitChildren }
        var read = Syntax(node)
        if let member = node.parent?.as(MemberAccessExprSyntax.self), member.declName.id == node.id { read = Syntax(member) }
        if !Self.isConfinedUse(read) {
            facts.contextNameReads[name] = false
        } else if known == nil {
            facts.contextNameReads[name] = true
        }
        return .visitChildren
    }

    /// `context.hasChanges` read straight in a function whose parameter `context` is a
    /// context: a getter of its state, a use as a method is.
    override func visit(_ node: MemberAccessExprSyntax) -> SyntaxVisitorContinueKind {
        guard let function = functions.last, !function.initParameters.isEmpty, function.name != "init",
            CoreDataAPI.contextStateProperties.contains(node.declName.baseName.text),
            let base = node.base?.as(DeclReferenceExprSyntax.self), let label = function.initParameters[base.baseName.text],
            !Expressions.isAssignmentTarget(node), placementOfCall(node) == .direct,
            !ClosurePlacement.isBoundByClosure(base.baseName.text, around: node)
        else { return .visitChildren }
        facts.contextParameterUses.append(
            ContextParameterUse(function: function.name, label: label, method: node.declName.baseName.text, place: place(node), isGetter: true))
        return .visitChildren
    }

    /// `#selector(name)` handed to a call, and did-save observers registered by
    /// selector. Read where the selector is, not by looking through every call's
    /// arguments for one (most files have none).
    override func visit(_ node: MacroExpansionExprSyntax) -> SyntaxVisitorContinueKind {
        guard node.macroName.text == "selector", let argument = node.parent?.as(LabeledExprSyntax.self),
            let call = argument.parent?.parent?.as(FunctionCallExprSyntax.self), let target = node.arguments.first?.expression,
            let method = Expressions.lastName(target)
        else { return .visitChildren }
        facts.escapingNames.insert(method)
        if call.calledExpression.as(MemberAccessExprSyntax.self)?.declName.baseName.text == "addObserver",
            let name = Expressions.argument("name", of: call),
            CoreDataAPI.didSaveNotifications.contains(Expressions.lastName(name) ?? "")
        {
            facts.didSaveSelectors.insert(method)
        }
        return .visitChildren
    }

}

enum Attributes {
    static func has(_ name: String, in attributes: AttributeListSyntax) -> Bool {
        guard !attributes.isEmpty else { return false }
        return attributes.contains { element in
            guard let attributeName = element.as(AttributeSyntax.self)?.attributeName else { return false }
            if let identifier = attributeName.as(IdentifierTypeSyntax.self), identifier.genericArgumentClause == nil {
                return identifier.name.text == name
            }
            return Expressions.trimmedText(attributeName) == name
        }
    }
}
