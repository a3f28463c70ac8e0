import SwiftSyntax

/// What the first pass learns from every scanned file, for the second pass to read in
/// any file: the `NSManagedObject` subclasses, the queue of each context property,
/// the did-save observers registered by selector, and the methods that return a fetch
/// request with no limit.
struct ProjectIndex: Sendable {
    /// `NSManagedObject` and its subclasses declared in the scanned files.
    var managedObjectClasses: Set<String> = [CoreDataAPI.managedObjectType]
    /// Context properties by name. A name declared with different queues is `.unknown`.
    var contextProperties: [String: ContextQueue] = [:]
    /// Methods named in `#selector(...)` of a did-save observer.
    var didSaveSelectors: Set<String> = []
    /// Methods with no parameters that build and return a fetch request with no
    /// `fetchLimit` and no `fetchBatchSize`, with the entity when known.
    var unboundedRequestFactories: [String: String?] = [:]

    init(files: [FileFacts]) {
        var superclasses: [String: String] = [:]
        var factoryNames: [String: Int] = [:]
        for file in files {
            superclasses.merge(file.superclasses) { first, _ in first }
            didSaveSelectors.formUnion(file.didSaveSelectors)
            for (name, queue) in file.contextProperties {
                contextProperties[name] = contextProperties[name].map { $0 == queue ? queue : .unknown } ?? queue
            }
            for (name, entity) in file.unboundedRequestFactories {
                factoryNames[name, default: 0] += 1
                unboundedRequestFactories[name] = entity
            }
        }
        // A name declared twice may be two different methods: keep neither.
        for (name, count) in factoryNames where count > 1 { unboundedRequestFactories[name] = nil }
        // Subclasses of subclasses, to a fixed point.
        var grew = true
        while grew {
            grew = false
            for (name, superclass) in superclasses where managedObjectClasses.contains(superclass) && !managedObjectClasses.contains(name) {
                managedObjectClasses.insert(name)
                grew = true
            }
        }
    }
}

/// The facts one file contributes to the `ProjectIndex`.
struct FileFacts: Sendable {
    var superclasses: [String: String] = [:]
    var contextProperties: [(String, ContextQueue)] = []
    var didSaveSelectors: Set<String> = []
    var unboundedRequestFactories: [(String, String?)] = []

    /// `text` is the source of `tree`: a file that never says `#selector` registers no
    /// observer by selector, and its function bodies need not be read.
    init(_ tree: SourceFileSyntax, text: String) {
        let collector = FactCollector(readsBodies: TextSearch.contains("#selector", in: text))
        collector.walk(tree)
        self = collector.facts
    }

    fileprivate init() {}
}

private final class FactCollector: SyntaxVisitor {
    var facts = FileFacts()
    /// Whether to read function bodies and closures, for `addObserver(_:selector:…)`.
    private let readsBodies: Bool

    init(readsBodies: Bool) {
        self.readsBodies = readsBodies
        super.init(viewMode: .sourceAccurate)
    }

    override func visit(_ node: CodeBlockSyntax) -> SyntaxVisitorContinueKind {
        readsBodies ? .visitChildren : .skipChildren
    }

    override func visit(_ node: ClosureExprSyntax) -> SyntaxVisitorContinueKind {
        readsBodies ? .visitChildren : .skipChildren
    }

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        if let first = node.inheritanceClause?.inheritedTypes.first?.type.as(IdentifierTypeSyntax.self) {
            facts.superclasses[node.name.text] = first.name.text
        }
        return .visitChildren
    }

    override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
        guard node.parent?.is(MemberBlockItemSyntax.self) == true else { return .visitChildren }
        for binding in node.bindings {
            guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { continue }
            let declaredAsContext = binding.typeAnnotation.map { TypeNames.base(of: $0.type) == CoreDataAPI.contextType } ?? false
            let setup = Syntax(binding.initializer) ?? Syntax(binding.accessorBlock)
            let queue = setup.map(Self.queue(declaredIn:)) ?? nil
            if Self.isEnvironmentContext(node) {
                // SwiftUI's environment context is the container's viewContext.
                facts.contextProperties.append((name, .main))
            } else if declaredAsContext {
                facts.contextProperties.append((name, queue ?? .unknown))
            } else if let queue, binding.typeAnnotation == nil, let value = binding.initializer?.value, Self.isContextExpression(value) {
                facts.contextProperties.append((name, queue))
            }
        }
        return readsBodies ? .visitChildren : .skipChildren
    }

    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
        if node.signature.parameterClause.parameters.isEmpty,
            let returned = node.signature.returnClause?.type,
            TypeNames.base(of: returned) == "NSFetchRequest",
            let body = node.body,
            !body.tokens(viewMode: .sourceAccurate).contains(where: { $0.text == "fetchLimit" || $0.text == "fetchBatchSize" })
        {
            facts.unboundedRequestFactories.append((node.name.text, TypeNames.genericArgument(of: returned)))
        }
        return .visitChildren
    }

    /// `addObserver(self, selector: #selector(contextDidSave(_:)), name: .NSManagedObjectContextDidSave, object: ...)`.
    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard node.calledExpression.as(MemberAccessExprSyntax.self)?.declName.baseName.text == "addObserver",
            let name = node.arguments.first(where: { $0.label?.text == "name" }),
            CoreDataAPI.didSaveNotifications.contains(Expressions.lastName(name.expression) ?? ""),
            let selector = node.arguments.first(where: { $0.label?.text == "selector" })?.expression.as(MacroExpansionExprSyntax.self),
            let target = selector.arguments.first?.expression,
            let method = Expressions.lastName(target)
        else { return .visitChildren }
        facts.didSaveSelectors.insert(method)
        return .visitChildren
    }

    /// `@Environment(\.managedObjectContext) var viewContext`.
    static func isEnvironmentContext(_ variable: VariableDeclSyntax) -> Bool {
        variable.attributes.contains { element in
            guard let attribute = element.as(AttributeSyntax.self), attribute.attributeName.trimmedDescription == "Environment" else { return false }
            return attribute.arguments?.trimmedDescription.hasSuffix(".managedObjectContext") == true
        }
    }

    /// The queue the tokens of a property's setup name, when they agree.
    static func queue(declaredIn setup: Syntax) -> ContextQueue? {
        var byConcurrencyType: Set<ContextQueue> = []
        var byContainer: Set<ContextQueue> = []
        for token in setup.tokens(viewMode: .sourceAccurate) {
            switch token.text {
            case "mainQueueConcurrencyType": byConcurrencyType.insert(.main)
            case "privateQueueConcurrencyType": byConcurrencyType.insert(.private)
            default: if let queue = CoreDataAPI.queue(named: token.text) { byContainer.insert(queue) }
            }
        }
        let named = byConcurrencyType.isEmpty ? byContainer : byConcurrencyType
        return named.count == 1 ? named.first : nil
    }

    static func isContextExpression(_ expression: ExprSyntax) -> Bool {
        if let member = expression.as(MemberAccessExprSyntax.self) { return member.declName.baseName.text == "viewContext" }
        guard let call = expression.as(FunctionCallExprSyntax.self) else { return false }
        return Expressions.lastName(call.calledExpression).map { $0 == "newBackgroundContext" || $0 == CoreDataAPI.contextType } ?? false
    }
}

extension ContextQueue: Hashable {}
