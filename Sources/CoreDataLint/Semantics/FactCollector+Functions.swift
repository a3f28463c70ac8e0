import SwiftSyntax

/// A function's declaration, read once: its parameters and its fact.
extension FactCollector {
    /// What one walk over a function's parameters tells: each parameter's type and
    /// names made once, not once a question.
    struct ParameterReading {
        /// Object parameters (`Entity` or `[Entity]`), by label, to their local names.
        var objectParameters: [String: String] = [:]
        /// Context parameters, by local name, to their labels.
        var contextParameters: [String: String] = [:]
        var locals: Set<String> = []
        /// Parameters of a function type, for a function with a body.
        var closures: [FunctionParameterSyntax] = []
        var joined = "", defaulted: UInt64 = 0, isVariadic = false
        var firstLabel: String?
        var takesWatchSession = false
    }

    static func readParameters(_ parameters: FunctionParameterListSyntax, hasBody: Bool) -> ParameterReading {
        var reading = ParameterReading()
        for (offset, parameter) in parameters.enumerated() {
            let parameterType = parameter.type
            let base = TypeNames.base(of: parameterType)
            let label = parameter.firstName.text
            let local = parameter.secondName?.text ?? label
            if offset == 0 {
                reading.firstLabel = label
                reading.takesWatchSession = base == "WCSession"
            }
            reading.joined += label
            reading.joined += ":"
            if parameter.defaultValue != nil, offset < 64 { reading.defaulted |= 1 << UInt64(offset) }
            if parameter.ellipsis != nil { reading.isVariadic = true }
            // An object parameter: `Entity` or `[Entity]` (an uppercase name that is no
            // standard type nor a context), by label.
            if let object = TypeNames.element(of: parameterType) ?? base, Self.startsUppercase(object), !Self.plainTypes.contains(object),
                object != CoreDataAPI.contextType
            {
                reading.objectParameters[label] = local
            }
            if base == CoreDataAPI.contextType { reading.contextParameters[local] = label }
            reading.locals.insert(local)
            if hasBody, Self.isFunctionType(parameterType) { reading.closures.append(parameter) }
        }
        return reading
    }

    /// The function's fact: its name, type, isolation, labels and object parameters.
    func recordFunction(_ node: FunctionDeclSyntax, _ parameters: ParameterReading) {
        let type = types.last
        let modifiers = node.modifiers.map(\.name.text)
        facts.functions.append(
            FunctionFact(
                name: node.name.text, firstLabel: parameters.firstLabel, type: type?.name,
                isIBAction: Attributes.has("IBAction", in: node.attributes),
                isMainActor: Attributes.has("MainActor", in: node.attributes) || type?.isMainActor == true,
                isCalledFromOutside: modifiers.contains("override") || Attributes.has("objc", in: node.attributes)
                    || Attributes.has("Test", in: node.attributes),
                isStatic: modifiers.contains("static") || modifiers.contains("class"),
                isAsync: node.signature.effectSpecifiers?.asyncSpecifier != nil && !Self.runsOnCallersActor(node),
                isNonisolated: modifiers.contains("nonisolated"), isTest: Attributes.has("Test", in: node.attributes), place: place(node.name),
                objectParameters: parameters.objectParameters,
                signature: ParameterLabels(joined: parameters.joined, defaulted: parameters.defaulted, isVariadic: parameters.isVariadic),
                takesWatchSession: parameters.takesWatchSession))
    }

    /// Standard types no managed object class is named after: a function returning one
    /// is not read for the objects it returns.
    static let plainTypes: Set<String> = [
        "String", "Int", "Bool", "Double", "Float", "Date", "Data", "URL", "UUID", "Void", "Any", "AnyObject", "Self", "CGFloat",
        "Int64", "Int32", "Int16", "UInt", "Character", "Substring", "Decimal", "Error", "Result", "Set", "Dictionary", "Array",
        "Optional", "UIImage", "UIView", "UIViewController", "UIColor", "Color", "View", "Text", "Image", "AnyView", "Bundle",
    ]

    /// A function with no context parameter returning objects of a type by name, whose
    /// body fetches or looks up objects from one context: a property (`self.context`,
    /// `stack.context`) or a `let` of the function set from one.
    func recordPropertyObjectReturn(_ name: String, _ returned: TypeSyntax, _ body: CodeBlockSyntax, locals: Set<String>) {
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
    static func startsUppercase(_ name: String) -> Bool {
        if let byte = name.utf8.first, byte < 0x80 { return byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
        return name.first?.isUppercase == true
    }

    /// `users` where the caller declared `let users = (try? context.fetch(request)) ?? []`
    /// (or `try? …`, `try …`): what tells the fetched context's queue.
    func fetchedObjectsEvidence(_ argument: ExprSyntax) -> QueueEvidence? {
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
    static func returnsObjectsOfReceiver(_ method: String, _ call: FunctionCallExprSyntax) -> Bool {
        switch method {
        case "fetch": return true
        case "existingObject", "object": return call.arguments.count == 1 && call.arguments.first?.label?.text == "with"
        default: return false
        }
    }

    /// `conversation` where it names an object parameter of the function making the call,
    /// not a local, a binding or a closure parameter of the same name.
    func objectParameterArgument(_ argument: ExprSyntax) -> String? {
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
    func recordClosureParameterQueues(_ function: String, _ closures: [FunctionParameterSyntax], _ body: CodeBlockSyntax) {
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
    static func queueOfUse(_ reference: DeclReferenceExprSyntax) -> ClosureParameterQueue.Queue? {
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
    static func isFunctionType(_ type: TypeSyntax) -> Bool {
        if let attributed = type.as(AttributedTypeSyntax.self) { return isFunctionType(attributed.baseType) }
        if let optional = type.as(OptionalTypeSyntax.self) { return isFunctionType(optional.wrappedType) }
        if let tuple = type.as(TupleTypeSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first { return isFunctionType(only.type) }
        return type.is(FunctionTypeSyntax.self)
    }

    /// A function returning objects of a type by name, whose body fetches or looks up
    /// objects from one of its context parameters.
    func recordObjectReturn(_ name: String, _ returned: TypeSyntax, _ parameters: [String: String], _ body: CodeBlockSyntax) {
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

    func readReturnType(_ returned: TypeSyntax, of node: FunctionDeclSyntax) {
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
}
