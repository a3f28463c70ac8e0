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

/// Line numbers from UTF-8 offsets, without a `SourceLocationConverter`.
struct LineTable {
    private var newlines: [Int32] = []

    /// How many lines end in a newline.
    var newlineCount: Int { newlines.count }

    init(_ text: String) {
        // On the contiguous UTF-8 bytes (a native string's): walking `text.utf8` with its
        // iterator cost about 30 instructions a byte, 1.3% of a lint run.
        let found = text.utf8.withContiguousStorageIfAvailable { bytes -> [Int32] in
            var newlines: [Int32] = []
            newlines.reserveCapacity(bytes.count / 32)
            for offset in bytes.indices where bytes[offset] == UInt8(ascii: "\n") { newlines.append(Int32(offset)) }
            return newlines
        }
        if let found {
            newlines = found
            return
        }
        var offset: Int32 = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\n") { newlines.append(offset) }
            offset += 1
        }
    }

    /// The UTF-8 offset where 1-based `line` starts.
    func start(ofLine line: Int) -> Int {
        line <= 1 ? 0 : Int(newlines[line - 2]) + 1
    }

    /// The 1-based line of a UTF-8 offset.
    func line(of offset: Int) -> Int {
        var low = 0, high = newlines.count
        while low < high {
            let middle = (low + high) / 2
            if Int(newlines[middle]) < offset { low = middle + 1 } else { high = middle }
        }
        return low + 1
    }
}

final class FactCollector: SyntaxVisitor {
    // Unchecked exclusivity on the state the walk reads at every node, as in
    // `SemanticWalker`: one file, one thread, and no access to these overlaps another.
    @exclusivity(unchecked) var facts = FileFacts()
    private let lines: LineTable
    private let fileName: String
    /// The types being read, innermost last, and whether each is `@MainActor`.
    @exclusivity(unchecked) private var types: [(name: String, isMainActor: Bool)] = []
    /// The functions being read, innermost last, with their locals and their context
    /// parameters (name to argument label).
    @exclusivity(unchecked) private var functions: [(name: String, locals: Set<String>, initParameters: [String: String])] = []
    /// The value of each `let` of the innermost function declared once with one
    /// (`let child = stack.makeEditingContext()`); nil for a name declared again.
    @exclusivity(unchecked) private var letValues: [[String: ExprSyntax?]] = []
    /// The value of each `if let` or `guard let` binding of the innermost function, kept
    /// apart from its `let`s (nil for a name bound again), and the names of its object
    /// parameters (`Entity` or `[Entity]`; none for an initializer).
    @exclusivity(unchecked) private var bindingValues: [[String: ExprSyntax?]] = []
    @exclusivity(unchecked) private var objectParameterNames: [Set<String>] = []
    /// Whether each function declaration being read has a context parameter (its
    /// `initParameters` may have been emptied since).
    @exclusivity(unchecked) private var functionTakesContext: [Bool] = []
    /// Where each function being read is in `facts.functions` (-1: none).
    @exclusivity(unchecked) private var functionIndexes: [Int32] = []
    /// The placement of the code straight inside each closure of the file met so far
    /// (see `placementOfCall(_:)`).
    @exclusivity(unchecked) private var closurePlacements: [SyntaxIdentifier: CallPlacement] = [:]
    /// Each distinct argument labels' number in `facts.labelTable`, and the number of
    /// none (the most frequent), kept apart from the table's hashing.
    @exclusivity(unchecked) private var labelNumbers: [String: Int32] = [:]
    @exclusivity(unchecked) private var emptyLabels: Int32?

    /// The source of the tree being walked, when at hand.
    private let text: String?

    /// Where other people's callbacks run.
    private let apiTable: APITable

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
    private func mayContain(_ node: some SyntaxProtocol, anyOf words: [StaticString]) -> Bool {
        mayContain(from: node.positionAfterSkippingLeadingTrivia.utf8Offset, to: node.endPositionBeforeTrailingTrivia.utf8Offset, anyOf: words)
    }

    /// `mayContain(_:anyOf:)` for the source bytes from UTF-8 offset `start` to `end`.
    private func mayContain(from start: Int, to end: Int, anyOf words: [StaticString]) -> Bool {
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

    private func place(_ node: some SyntaxProtocol) -> SourcePlace {
        SourcePlace(file: fileName, line: lines.line(of: node.positionAfterSkippingLeadingTrivia.utf8Offset))
    }

    // MARK: Types

    private func enterType(_ name: String, attributes: AttributeListSyntax, inheritance: InheritanceClauseSyntax?, declares: Bool = true) {
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

    /// Inside `extension NSManagedObjectContext { }`, outside any function.
    private var isInContextExtension: Bool {
        types.last?.name == CoreDataAPI.contextType && !facts.declaredTypes.contains(CoreDataAPI.contextType) && functions.isEmpty
    }

    /// A context extension member of this name is one of the rules' own: an overload of
    /// Core Data's `save()` or `fetch(_:)` is already a use, and reported once.
    private static func isCoreDataMember(_ name: String) -> Bool {
        CoreDataAPI.contextMethods.contains(name) || CoreDataAPI.contextStateProperties.contains(name)
    }

    /// A computed property's getter: the whole block, or its `get { }`.
    private static func getter(of accessors: AccessorBlockSyntax) -> Syntax {
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

    private func contextDeclaration(_ name: String, _ binding: PatternBindingSyntax, in variable: VariableDeclSyntax) -> ContextDeclaration? {
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
    private static func getterMakesContext(_ accessors: AccessorBlockSyntax?) -> Bool {
        guard let accessors, case .getter(let items) = accessors.accessors, items.count == 1, let item = items.first?.item,
            let expression = (item.as(ReturnStmtSyntax.self)?.expression ?? item.as(ExprSyntax.self)).map(Expressions.unwrapped),
            let call = expression.as(FunctionCallExprSyntax.self), let name = Expressions.lastName(call.calledExpression)
        else { return false }
        return name == "newBackgroundContext" || name == CoreDataAPI.contextType
    }

    // MARK: Functions

    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
        let name = node.name.text
        let type = types.last
        let modifiers = node.modifiers.map(\.name.text)
        // One walk over the parameters reads all the fact and the body's walk need of
        // them: each parameter's type and names made once, not once a question.
        let parameters = node.signature.parameterClause.parameters
        let hasBody = node.body != nil
        var objectParameters: [String: String] = [:]
        var contextParameters: [String: String] = [:]
        var locals: Set<String> = []
        var closures: [FunctionParameterSyntax] = []
        var joined = "", defaulted: UInt64 = 0, isVariadic = false
        var firstLabel: String?
        var takesWatchSession = false
        for (offset, parameter) in parameters.enumerated() {
            let parameterType = parameter.type
            let base = TypeNames.base(of: parameterType)
            let label = parameter.firstName.text
            let local = parameter.secondName?.text ?? label
            if offset == 0 {
                firstLabel = label
                takesWatchSession = base == "WCSession"
            }
            joined += label
            joined += ":"
            if parameter.defaultValue != nil, offset < 64 { defaulted |= 1 << UInt64(offset) }
            if parameter.ellipsis != nil { isVariadic = true }
            // An object parameter: `Entity` or `[Entity]` (an uppercase name that is no
            // standard type nor a context), by label.
            if let object = TypeNames.element(of: parameterType) ?? base, Self.startsUppercase(object), !Self.plainTypes.contains(object),
                object != CoreDataAPI.contextType
            {
                objectParameters[label] = local
            }
            if base == CoreDataAPI.contextType { contextParameters[local] = label }
            locals.insert(local)
            if hasBody, Self.isFunctionType(parameterType) { closures.append(parameter) }
        }
        let takesContext = !contextParameters.isEmpty
        // A protocol's requirement is the same method as its implementations, not another.
        if node.body != nil {
            facts.functions.append(
                FunctionFact(
                    name: name, firstLabel: firstLabel, type: type?.name,
                    isIBAction: Attributes.has("IBAction", in: node.attributes),
                    isMainActor: Attributes.has("MainActor", in: node.attributes) || type?.isMainActor == true,
                    isCalledFromOutside: modifiers.contains("override") || Attributes.has("objc", in: node.attributes)
                        || Attributes.has("Test", in: node.attributes),
                    isStatic: modifiers.contains("static") || modifiers.contains("class"),
                    isAsync: node.signature.effectSpecifiers?.asyncSpecifier != nil && !Self.runsOnCallersActor(node),
                    isNonisolated: modifiers.contains("nonisolated"), isTest: Attributes.has("Test", in: node.attributes), place: place(node.name),
                    objectParameters: objectParameters,
                    signature: ParameterLabels(joined: joined, defaulted: defaulted, isVariadic: isVariadic),
                    takesWatchSession: takesWatchSession))
        }
        if let returned = node.signature.returnClause?.type {
            readReturnType(returned, of: node)
        }
        if isInContextExtension, !Self.isCoreDataMember(name), let body = node.body, let (confined, at) = Self.confinedUseOfSelf(in: Syntax(body)) {
            facts.contextExtensionUses.append(ContextExtensionUse(member: name, isProperty: false, confined: confined, place: place(at)))
        }
        if !contextParameters.isEmpty, let returned = node.signature.returnClause?.type, let body = node.body {
            recordObjectReturn(name, returned, contextParameters, body)
        }
        if let body = node.body { recordClosureParameterQueues(name, closures, body) }
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
        functions.append((name, locals, contextParameters))
        functionTakesContext.append(takesContext)
        functionIndexes.append(node.body != nil ? Int32(facts.functions.count - 1) : -1)
        letValues.append([:])
        bindingValues.append([:])
        objectParameterNames.append(Set(objectParameters.values))
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

    /// Standard types no managed object class is named after: a function returning one
    /// is not read for the objects it returns.
    private static let plainTypes: Set<String> = [
        "String", "Int", "Bool", "Double", "Float", "Date", "Data", "URL", "UUID", "Void", "Any", "AnyObject", "Self", "CGFloat",
        "Int64", "Int32", "Int16", "UInt", "Character", "Substring", "Decimal", "Error", "Result", "Set", "Dictionary", "Array",
        "Optional", "UIImage", "UIView", "UIViewController", "UIColor", "Color", "View", "Text", "Image", "AnyView", "Bundle",
    ]

    /// A function with no context parameter returning objects of a type by name, whose
    /// body fetches or looks up objects from one context: a property (`self.context`,
    /// `stack.context`) or a `let` of the function set from one.
    private func recordPropertyObjectReturn(_ name: String, _ returned: TypeSyntax, _ body: CodeBlockSyntax, locals: Set<String>) {
        let element = TypeNames.element(of: returned)
        guard let type = element ?? TypeNames.base(of: returned), Self.startsUppercase(type), !Self.plainTypes.contains(type),
            type != CoreDataAPI.contextType, !type.hasPrefix("NSFetchRequest"), !CoreDataAPI.nonObjectResults.contains(type),
            // `fetch`, `object`, `existingObject`, `registeredObject`: a body that spells
            // none of them is not read token by token.
            mayContain(body, anyOf: ["fetch", "bject"])
        else { return }
        let tokens = Array(body.tokens(viewMode: .sourceAccurate))
        var sources: Set<String> = []
        var index = 0
        while index + 2 < tokens.count {
            defer { index += 1 }
            guard tokens[index + 1].tokenKind == .period, ["fetch", "object", "existingObject", "registeredObject"].contains(tokens[index + 2].text),
                case .identifier = tokens[index].tokenKind
            else { continue }
            let receiver = tokens[index].text
            if locals.contains(receiver) {
                // A `let` declared once, set from a context property or function.
                guard let local = letValues.last?[receiver], let value = local, case .name(let source) = Self.evidence(of: Syntax(Expressions.unwrapped(value))) else {
                    return
                }
                sources.insert(source)
            } else {
                sources.insert(receiver)
            }
        }
        guard sources.count == 1, let source = sources.first else { return }
        facts.propertyObjectReturns.append(PropertyObjectReturn(function: name, context: source, type: type, isCollection: element != nil))
    }

    /// `nonisolated(nonsending)`, or an `isolated` parameter (`isolation: isolated
    /// (any Actor)? = #isolation`): an async function that runs on its caller's actor.
    static func runsOnCallersActor(_ node: FunctionDeclSyntax) -> Bool {
        node.modifiers.contains { $0.name.text == "nonisolated" && $0.detail?.detail.text == "nonsending" }
            || node.signature.parameterClause.parameters.contains { parameter in
                parameter.type.as(AttributedTypeSyntax.self)?.specifiers.contains { $0.trimmedDescription == "isolated" } == true
            }
    }

    /// `name.first?.isUppercase == true`, read on the first byte when it is ASCII (a
    /// Character's Unicode properties are looked up in tables): asked of every parameter.
    private static func startsUppercase(_ name: String) -> Bool {
        if let byte = name.utf8.first, byte < 0x80 { return byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
        return name.first?.isUppercase == true
    }

    /// `users` where the caller declared `let users = (try? context.fetch(request)) ?? []`
    /// (or `try? …`, `try …`): what tells the fetched context's queue.
    private func fetchedObjectsEvidence(_ argument: ExprSyntax) -> QueueEvidence? {
        guard let reference = argument.as(DeclReferenceExprSyntax.self) else { return nil }
        let name = reference.baseName.text
        let asLet = letValues.last?[name], asBinding = bindingValues.last?[name]
        // A name both a `let` and a binding of this function may be either: no evidence.
        guard (asLet == nil) != (asBinding == nil), let local = asLet ?? asBinding, var value = local else { return nil }
        // `(try? c.fetch(r)) ?? []`, `try? c.existingObject(with: id) as? Conversation`
        // (the cast keeps the object): down to the call.
        while true {
            value = Expressions.unwrapped(value)
            if let cast = value.as(AsExprSyntax.self) { value = cast.expression; continue }
            guard let sequence = value.as(SequenceExprSyntax.self) else { break }
            let elements = Array(sequence.elements)
            guard elements.count == 3 else { return nil }
            let isDefaultEmpty = elements[1].as(BinaryOperatorExprSyntax.self)?.operator.text == "??" && elements[2].is(ArrayExprSyntax.self)
            guard isDefaultEmpty || elements[1].is(UnresolvedAsExprSyntax.self) else { return nil }
            value = elements[0]
        }
        guard let call = value.as(FunctionCallExprSyntax.self), let member = call.calledExpression.as(MemberAccessExprSyntax.self),
            Self.returnsObjectsOfReceiver(member.declName.baseName.text, call), let base = member.base
        else { return nil }
        let evidence = Self.evidence(of: Syntax(Expressions.unwrapped(base)))
        return evidence == .unknown ? nil : evidence
    }

    /// `fetch(_:)`, `existingObject(with:)` and `object(with:)` return objects of the
    /// context they are called on.
    private static func returnsObjectsOfReceiver(_ method: String, _ call: FunctionCallExprSyntax) -> Bool {
        switch method {
        case "fetch": return true
        case "existingObject", "object": return call.arguments.count == 1 && call.arguments.first?.label?.text == "with"
        default: return false
        }
    }

    /// `conversation` where it names an object parameter of the function making the call,
    /// not a local, a binding or a closure parameter of the same name.
    private func objectParameterArgument(_ argument: ExprSyntax) -> String? {
        // Most functions have no object parameter: nothing to look up.
        guard objectParameterNames.last?.isEmpty == false, let reference = argument.as(DeclReferenceExprSyntax.self), reference.argumentNames == nil
        else { return nil }
        let name = reference.baseName.text
        guard objectParameterNames.last?.contains(name) == true, letValues.last?[name] == nil, bindingValues.last?[name] == nil else { return nil }
        var current = Syntax(argument).parent
        while let syntax = current {
            if syntax.is(FunctionDeclSyntax.self) { return name }
            if let closure = syntax.as(ClosureExprSyntax.self), ClosurePlacement.binds(name, closure) { return nil }
            current = syntax.parent
        }
        return nil
    }

    /// The closure parameters `body` calls only on the main queue or only off it
    /// (`DispatchQueue.main.async { success(data) }`, `Task.detached(operation: body)`),
    /// and uses in no other way.
    /// `closures`: the function's parameters of a function type, in order (an array, not
    /// `parameters.filter`: SwiftSyntax's filter builds a new syntax collection).
    private func recordClosureParameterQueues(_ function: String, _ closures: [FunctionParameterSyntax], _ body: CodeBlockSyntax) {
        guard !closures.isEmpty else { return }
        var tokens: [TokenSyntax]?
        for parameter in closures {
            let name = (parameter.secondName ?? parameter.firstName).text
            tokens = tokens ?? Array(body.tokens(viewMode: .sourceAccurate))
            var agreed: ClosureParameterQueue.Queue?
            var at: Syntax?
            var known = true
            for token in tokens! where token.text == name {
                guard let reference = token.parent?.as(DeclReferenceExprSyntax.self), reference.parent?.as(MemberAccessExprSyntax.self)?.declName.id != reference.id else {
                    continue
                }
                guard let queue = Self.queueOfUse(reference) else { known = false; break }
                if let agreed, agreed != queue { known = false; break }
                agreed = queue
                at = at ?? Syntax(reference)
            }
            guard known, let agreed, let at else { continue }
            facts.closureParameterQueues.append(
                ClosureParameterQueue(
                    function: function, label: parameter.firstName.text, isOnlyClosureParameter: closures.count == 1, queue: agreed, place: place(at)))
        }
    }

    /// Where a use of a closure parameter runs it: called (`success(data)`,
    /// `handler?(x)`) in a closure on the main queue or off it, or handed to
    /// `Task.detached(operation:)` or `DispatchQueue.main.async(execute:)`. Nil for any
    /// other use (stored, handed on, called straight: the caller's queue).
    private static func queueOfUse(_ reference: DeclReferenceExprSyntax) -> ClosureParameterQueue.Queue? {
        var callee = Syntax(reference)
        if let optional = callee.parent?.as(OptionalChainingExprSyntax.self) { callee = Syntax(optional) }
        if let call = callee.parent?.as(FunctionCallExprSyntax.self), call.calledExpression.id == callee.id {
            switch placement(of: call) {
            case .main: return .main
            case .background: return .background
            default: return nil
            }
        }
        guard let argument = reference.parent?.as(LabeledExprSyntax.self), let call = argument.parent?.parent?.as(FunctionCallExprSyntax.self),
            let member = call.calledExpression.as(MemberAccessExprSyntax.self), let base = member.base.map(Expressions.unwrapped)
        else { return nil }
        let method = member.declName.baseName.text
        if method == "detached", Expressions.lastName(base) == "Task", argument.label?.text == "operation" { return .background }
        if method == "async", argument.label?.text == "execute", ClosurePlacement.isMainQueue(base), placement(of: call) == .direct { return .main }
        return nil
    }

    /// `@escaping (Data) -> Void`, `(() -> Void)?`, `@Sendable () async -> Void`.
    private static func isFunctionType(_ type: TypeSyntax) -> Bool {
        if let attributed = type.as(AttributedTypeSyntax.self) { return isFunctionType(attributed.baseType) }
        if let optional = type.as(OptionalTypeSyntax.self) { return isFunctionType(optional.wrappedType) }
        if let tuple = type.as(TupleTypeSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first { return isFunctionType(only.type) }
        return type.is(FunctionTypeSyntax.self)
    }

    /// A function returning objects of a type by name, whose body fetches or looks up
    /// objects from one of its context parameters.
    private func recordObjectReturn(_ name: String, _ returned: TypeSyntax, _ parameters: [String: String], _ body: CodeBlockSyntax) {
        let element = TypeNames.element(of: returned)
        guard let type = element ?? TypeNames.base(of: returned), type.first?.isUppercase == true,
            type != CoreDataAPI.contextType, !type.hasPrefix("NSFetchRequest"), !CoreDataAPI.nonObjectResults.contains(type)
        else { return }
        let tokens = Array(body.tokens(viewMode: .sourceAccurate))
        var index = 0
        while index + 2 < tokens.count {
            if let label = parameters[tokens[index].text], tokens[index + 1].tokenKind == .period,
                ["fetch", "object", "existingObject", "registeredObject"].contains(tokens[index + 2].text)
            {
                facts.objectReturns.append(ObjectReturn(function: name, label: label, type: type, isCollection: element != nil))
                return
            }
            index += 1
        }
    }

    private func readReturnType(_ returned: TypeSyntax, of node: FunctionDeclSyntax) {
        let base = TypeNames.base(of: returned)
        if base == CoreDataAPI.contextType, let body = node.body {
            let evidence = Self.evidence(of: Syntax(body))
            let makesNew = body.tokens(viewMode: .sourceAccurate).contains { $0.text == "newBackgroundContext" || $0.text == CoreDataAPI.contextType }
            facts.contextDeclarations.append(
                ContextDeclaration(
                    name: node.name.text, kind: .function, evidence: evidence == .unknown ? nil : evidence, place: place(node.name), makesNew: makesNew))
        } else if base == "NSFetchRequest", node.signature.parameterClause.parameters.isEmpty, let body = node.body {
            var factory = RequestFactory(entity: TypeNames.genericArgument(of: returned), hasLimit: false, hasBatchSize: false)
            for token in body.tokens(viewMode: .sourceAccurate) {
                if token.text == "fetchLimit" { factory.hasLimit = true }
                if token.text == "fetchBatchSize" { factory.hasBatchSize = true }
                if token.text == "predicate" { factory.hasPredicate = true }
            }
            facts.requestFactories.append((node.name.text, factory))
        }
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

    /// The type of a `let` of this function set once to `… as! T`, `… as? T` or `T(…)`.
    private func localType(_ expression: ExprSyntax) -> String? {
        guard let name = expression.as(DeclReferenceExprSyntax.self)?.baseName.text, let value = letValues.last?[name] ?? nil else { return nil }
        if let call = value.as(FunctionCallExprSyntax.self), let type = call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text,
            type.first?.isUppercase == true
        {
            return type
        }
        guard let sequence = value.as(SequenceExprSyntax.self) else { return nil }
        let elements = Array(sequence.elements)
        guard elements.count == 3, elements[1].is(UnresolvedAsExprSyntax.self), let type = elements[2].as(TypeExprSyntax.self) else { return nil }
        return TypeNames.base(of: type.type)
    }

    private static func isLiteral(_ value: ExprSyntax) -> Bool {
        value.is(NilLiteralExprSyntax.self) || value.is(StringLiteralExprSyntax.self) || value.is(IntegerLiteralExprSyntax.self)
            || value.is(FloatLiteralExprSyntax.self) || value.is(BooleanLiteralExprSyntax.self) || value.is(ArrayExprSyntax.self)
            || value.is(DictionaryExprSyntax.self) || value.is(ClosureExprSyntax.self)
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

    /// The number of a call's argument labels in `facts.labelTable`, added there the
    /// first time.
    private func labelNumber(_ labels: String) -> Int32 {
        if labels.isEmpty, let emptyLabels { return emptyLabels }
        if let number = labelNumbers[labels] { return number }
        let number = Int32(facts.labelTable.count)
        precondition(number < CallFact.labelNumbers, "more argument label lists in one file than a call's fact numbers")
        facts.labelTable.append(labels)
        labelNumbers[labels] = number
        if labels.isEmpty { emptyLabels = number }
        return number
    }

    /// `defaultIsolation(MainActor.self)` or `.enableUpcomingFeature("NonisolatedNonsendingByDefault")`
    /// in a manifest: an unmarked async function may run on the main actor.
    private func recordIsolationSetting(_ node: FunctionCallExprSyntax, name: String) {
        switch name {
        case "defaultIsolation":
            facts.changesDefaultIsolation = true
        case "enableUpcomingFeature", "enableExperimentalFeature":
            if Expressions.text(node.arguments).contains("NonisolatedNonsendingByDefault") { facts.changesDefaultIsolation = true }
        default:
            break
        }
    }

    /// `URLSession(configuration: …, delegate: self, delegateQueue: …)`: the queue the
    /// type's session delegate methods run on.
    private func recordSessionDelegate(_ call: FunctionCallExprSyntax) {
        guard let delegate = Expressions.argument("delegate", of: call), Expressions.isSelf(delegate), let type = types.last?.name else { return }
        let queue: SessionDelegateQueue
        switch Expressions.argument("delegateQueue", of: call).map(Expressions.unwrapped) {
        case nil: queue = .background
        case let value?:
            if value.is(NilLiteralExprSyntax.self) {
                queue = .background
            } else if ClosurePlacement.isMainQueue(value) {
                queue = .main
            } else if let made = value.as(FunctionCallExprSyntax.self), Expressions.lastName(made.calledExpression) == "OperationQueue", made.arguments.isEmpty {
                queue = .background
            } else {
                queue = .unknown
            }
        }
        facts.sessionDelegateQueues[type, default: []].append(queue)
    }

    /// `context.count(for:)` straight in a function whose parameter `context` is a context.
    private func recordParameterUse(_ node: FunctionCallExprSyntax) {
        guard let function = functions.last, function.name != "init", !function.initParameters.isEmpty,
            let member = node.calledExpression.as(MemberAccessExprSyntax.self),
            CoreDataAPI.contextMethods.contains(member.declName.baseName.text),
            let base = member.base?.as(DeclReferenceExprSyntax.self), let label = function.initParameters[base.baseName.text],
            placementOfCall(node) == .direct, !ClosurePlacement.isBoundByClosure(base.baseName.text, around: node)
        else { return }
        facts.contextParameterUses.append(
            ContextParameterUse(function: function.name, label: label, method: member.declName.baseName.text, place: place(member)))
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

    /// 7 bytes or more, "ontext" in it, a lowercase first letter (after any
    /// underscores). Every identifier of the project comes here: an ASCII name (nearly
    /// all) is read on its UTF-8 bytes, which answers as the String checks do and costs
    /// no Foundation search.
    static func isContextLikeName(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard utf8.count >= 7 else { return false }
        let ascii = utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            // Underscores first (`_backgroundContext`), then a lowercase letter.
            var first = 0
            while first < bytes.count, bytes[first] == UInt8(ascii: "_") { first += 1 }
            guard first < bytes.count, bytes[first] >= UInt8(ascii: "a"), bytes[first] <= UInt8(ascii: "z") else { return false }
            var index = first
            while index + 6 <= bytes.count {
                if bytes[index] == UInt8(ascii: "o"), bytes[index + 1] == UInt8(ascii: "n"), bytes[index + 2] == UInt8(ascii: "t"),
                    bytes[index + 3] == UInt8(ascii: "e"), bytes[index + 4] == UInt8(ascii: "x"), bytes[index + 5] == UInt8(ascii: "t")
                {
                    return true
                }
                index += 1
            }
            return false
        }
        if let ascii, let answer = ascii { return answer }
        return name.contains("ontext") && startsLikeMember(name)
    }

    /// A function's or property's name, not a type's: it starts with a lowercase letter,
    /// or with underscores before one (`_reload`, `__context`), as private helpers are
    /// often spelled.
    static func startsLikeMember(_ name: String) -> Bool {
        let rest = name.drop { $0 == "_" }
        return rest.first?.isLowercase == true
    }

    /// `name.save()`, `name?.hasChanges`, `Entity(context: name)`,
    /// `insertNewObject(forEntityName:into: name)`, `name = …`, `name.mergePolicy = …`.
    private static func isConfinedUse(_ read: Syntax) -> Bool {
        var expression = read
        while let parent = expression.parent, parent.is(OptionalChainingExprSyntax.self) || parent.is(ForceUnwrapExprSyntax.self) {
            expression = parent
        }
        if let member = expression.parent?.as(MemberAccessExprSyntax.self), member.base?.id == expression.id {
            let used = member.declName.baseName.text
            return CoreDataAPI.contextMethods.contains(used) || CoreDataAPI.contextStateProperties.contains(used)
                || ["name", "parent", "persistentStoreCoordinator", "concurrencyType"].contains(used)
        }
        if Expressions.isAssignmentTarget(expression) { return true }
        if let argument = expression.parent?.as(LabeledExprSyntax.self), let call = argument.parent?.parent?.as(FunctionCallExprSyntax.self),
            let callee = Expressions.lastName(call.calledExpression)
        {
            return (argument.label?.text == "context" && callee.first?.isUppercase == true) || (argument.label?.text == "into" && callee == "insertNewObject")
        }
        return false
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

    private func recordInitArguments(_ call: FunctionCallExprSyntax, type: String) {
        for argument in call.arguments {
            guard let label = argument.label?.text, Expressions.mentions(argument.expression, anyOf: ["ontext", "ConcurrencyType"]) else { continue }
            let text = Expressions.text(argument.expression)
            facts.initArguments.append(
                InitArgument(
                    type: type, label: label, evidence: Self.evidence(of: Syntax(Expressions.unwrapped(argument.expression))),
                    valueText: text, place: place(argument)))
        }
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

    /// `self.handle` or `handle` handed as an argument: a function used as a value.
    private static func functionValue(_ expression: ExprSyntax) -> String? {
        if let member = expression.as(MemberAccessExprSyntax.self), Expressions.isSelf(member.base) { return member.declName.baseName.text }
        return expression.as(DeclReferenceExprSyntax.self)?.baseName.text
    }

    /// `local.perform { call() }` where `local` is a `let` of this function made
    /// private right there (`newBackgroundContext()`), or set from a project function or
    /// property the index resolves: the call runs on that private context's queue.
    /// `performAndWait` runs its block on the caller's thread, and stays as it was.
    private func refined(_ placement: CallPlacement, _ node: FunctionCallExprSyntax) -> CallPlacement {
        // The closure and its shape found once, for both questions.
        guard case .perform(let name) = placement, let closure = Self.innermostPerform(around: node),
            case .perform(let base?, let andWait) = ClosurePlacement.shape(of: closure)
        else { return placement }
        let performed = Expressions.unwrapped(base)
        if isSelfProperty(performed, name),
            let receiver = node.calledExpression.as(MemberAccessExprSyntax.self)?.base?.as(DeclReferenceExprSyntax.self),
            let local = letValues.last?[receiver.baseName.text], let value = local.map(Expressions.unwrapped),
            let made = value.as(FunctionCallExprSyntax.self), made.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text.first?.isUppercase == true,
            !Expressions.mentions(made.arguments, anyOf: ["ontext"])
        {
            // `let target = Store(url: url)`: a new instance, whose `prop` this function's
            // `prop.perform { }` is not (its initializer is handed no context).
            return .performOnOtherInstance(name, andWait: andWait)
        }
        guard !andWait, let reference = performed.as(DeclReferenceExprSyntax.self), reference.baseName.text == name,
            let local = letValues.last?[name], let value = local
        else { return placement }
        switch Self.evidence(of: Syntax(Expressions.unwrapped(value))) {
        case .queue(.private): return .privateQueue(queue: "the queue of the private-queue context '\(name)'", block: "\(name).perform { }")
        case .name(let made): return .performOnLocal(name, madeBy: made)
        case .queue, .unknown: return placement
        }
    }

    /// `prop` or `self.prop`, where `prop` is no local of this function.
    private func isSelfProperty(_ expression: ExprSyntax, _ name: String) -> Bool {
        if let member = expression.as(MemberAccessExprSyntax.self) { return Expressions.isSelf(member.base) && member.declName.baseName.text == name }
        guard let reference = expression.as(DeclReferenceExprSyntax.self), reference.baseName.text == name else { return false }
        return functions.last?.locals.contains(name) != true
    }

    /// The closure a call is in that decides its placement: the innermost one that
    /// does not run right there.
    private static func innermostPerform(around node: some SyntaxProtocol) -> ClosureExprSyntax? {
        var current = Syntax(node).parent
        while let syntax = current {
            switch syntax.kind {
            case .functionDecl, .initializerDecl: return nil
            case .closureExpr:
                let closure = syntax.cast(ClosureExprSyntax.self)
                if case .here = ClosurePlacement.shape(of: closure) {} else { return closure }
            default: break
            }
            current = syntax.parent
        }
        return nil
    }

    /// Where a call runs relative to its function: walks out through the closures
    /// around it.
    private static func placement(of node: some SyntaxProtocol) -> CallPlacement {
        var memo: [SyntaxIdentifier: CallPlacement] = [:]
        return placement(of: node, memo: &memo)
    }

    /// `placement(of:)`, with the placement of the code straight inside each closure
    /// met kept in `closurePlacements`: the calls in one closure share it, and finding
    /// a closure's shape is most of the cost.
    private func placementOfCall(_ node: some SyntaxProtocol) -> CallPlacement {
        Self.placement(of: node, memo: &closurePlacements, table: apiTable)
    }

    /// `placement(of:)`, reading and filling `memo`: the placement of the code straight
    /// inside each closure, by the closure. Node kinds are read once a step (each
    /// `is(_:)` made a typed node).
    private static func placement(of node: some SyntaxProtocol, memo: inout [SyntaxIdentifier: CallPlacement], table: APITable = .builtIn) -> CallPlacement {
        var current = Syntax(node).parent
        while let syntax = current {
            switch syntax.kind {
            case .functionDecl, .initializerDecl: return .direct
            case .accessorBlock, .memberBlock: return .unknown
            case .closureExpr:
                if let known = memo[syntax.id] { return known }
                let closure = syntax.cast(ClosureExprSyntax.self)
                let inside: CallPlacement
                switch ClosurePlacement.shape(of: closure, table: table) {
                case .here: inside = placement(of: closure, memo: &memo, table: table)
                case .main: inside = .main
                case .background: inside = .background
                case .perform(let base, _): inside = base.flatMap(Expressions.lastName).map(CallPlacement.perform) ?? .unknown
                case .privateBlock(let method): inside = .privateQueue(queue: "the queue of \(method)'s context", block: "\(method) { }")
                case .timer:
                    // Apple's `Timer.scheduledTimer(withTimeInterval:repeats:block:)`:
                    // "Creates a timer and schedules it on the current run loop in the
                    // default mode", so its block runs on the thread that scheduled it:
                    // the main thread when scheduled from the main queue. A dispatch
                    // queue's thread runs no run loop: anywhere else, unknown.
                    inside = placement(of: closure, memo: &memo, table: table) == .main ? .main : .unknown
                case .elsewhere: inside = .unknown
                }
                memo[syntax.id] = inside
                return inside
            default:
                break
            }
            current = syntax.parent
        }
        return .unknown
    }

    // MARK: Reading setups

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
    private static func singleReturnedName(_ setup: Syntax) -> String? {
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
