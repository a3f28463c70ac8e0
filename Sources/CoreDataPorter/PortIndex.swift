import CtxdebugHelpers
import SwiftParser
import SwiftSyntax

/// The constants a ported file may name where the port needs a literal: a compiled
/// model's extension (`static let modelExtension = "momd"`) passed to
/// `url(forResource:withExtension:)`, and a `#selector` kept in a `let` and passed to
/// `addObserver(_:selector:name:object:)` or `perform(_:)` later.
///
/// `Porter.run` indexes every source that declares one (the quick filter:
/// `mayDeclareConstants`) before it ports any, so a constant in another ported file is
/// known; the file being ported adds its own, with the ones in its functions. A name is
/// read through only when every declaration of it that the index holds agrees (the same
/// literal, or the same selector): `enum A { static let ext = "momd" }` beside `enum B {
/// static let ext = "png" }` leaves a bare `ext` as it is, and `A.ext` is read through.
/// A parameter or binding of the name in the file being ported hides it the same way,
/// and a `var` is never read through: it may change.
struct PortIndex: Sendable {
    enum Value: Hashable, Sendable {
        /// `"momd"` or `"mom"`, or `"cdm"` (a compiled mapping model).
        case modelExtension
        case selector(SelectorName)
        /// Anything else: a `var`, or a `let` of another value.
        case other
    }

    struct Declaration: Hashable, Sendable {
        /// The enclosing type's name (its last component); nil at file level or in a function.
        var type: String?
        var value: Value
    }

    private(set) var declarations: [String: Set<Declaration>] = [:]

    init() {}

    /// The constants `tree` declares at file level and in its types (with `locals`, also
    /// in its functions and closures). `functions` resolves a `#selector` without labels.
    init(indexing tree: SourceFileSyntax, locals: Bool) {
        let functions = FunctionIndex.functions(in: tree)
        let indexer = ConstantIndexer(locals: locals, functions: functions)
        indexer.walk(tree)
        declarations = indexer.declarations
        throwingMethods = Set(functions.values.joined().filter(\.throwing).map { SelectorName(base: $0.base, labels: $0.labels, throwing: true).swiftName })
    }

    /// Whether `text` may declare one (`= "momd"`, `= #selector(`): only such files are
    /// indexed before the port, so a tree of files that declare none is parsed once.
    static func mayDeclareConstants(_ text: String) -> Bool {
        TextSearch.containsAny(["= \"mom", "=\"mom", "= \"cdm\"", "=\"cdm\"", "= #selector", "=#selector"], in: text)
    }

    var isEmpty: Bool { declarations.isEmpty && throwingMethods.isEmpty }

    /// Whether `text` may declare an `@objc` method that throws (a selector's target):
    /// a line with `func` and `throws` that has `@objc`, or follows a line of attributes
    /// that does.
    static func mayDeclareThrowingMethods(_ text: String) -> Bool {
        guard TextSearch.contains("throws", in: text), TextSearch.contains("@objc", in: text) else { return false }
        var previous: Substring = ""
        for line in text.split(separator: "\n") {
            let attributesAbove = previous.drop(while: \.isWhitespace).hasPrefix("@objc") && !TextSearch.contains("{", in: previous)
            if TextSearch.contains("func ", in: line), TextSearch.contains("throws", in: line), TextSearch.contains("@objc", in: line) || attributesAbove { return true }
            if !line.allSatisfy(\.isWhitespace) { previous = line }
        }
        return false
    }

    /// The methods of the indexed files that throw, by Swift name (`importChanges(_:)`):
    /// a selector of one declared in another file is called with `try!` too.
    private(set) var throwingMethods: Set<String> = []

    mutating func merge(_ other: PortIndex) {
        for (name, set) in other.declarations { declarations[name, default: []].formUnion(set) }
        throwingMethods.formUnion(other.throwingMethods)
    }

    /// What `expr` names, when the index knows it without doubt: `name`, `self.name`,
    /// `Self.name` and `.name` by every declaration of that name; `Type.name` by those
    /// of `Type`; `value.name` by those in types.
    /// An enum case's raw value reads the same way: `ModelFileExtension.bundle.rawValue`
    /// of `enum ModelFileExtension: String { case bundle = "momd" }`.
    func value(of expr: ExprSyntax) -> Value? {
        if let member = expr.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "rawValue",
            let base = member.base, base.is(MemberAccessExprSyntax.self)
        {
            return value(of: base, key: Self.caseKey)
        }
        return value(of: expr, key: "")
    }

    /// Where the index keeps an enum case (`case bundle = "momd"`): apart from the
    /// constants, as only `.rawValue` reads one.
    static let caseKey = "case "

    private func value(of expr: ExprSyntax, key prefix: String) -> Value? {
        let candidates: Set<Declaration>
        if let ref = expr.as(DeclReferenceExprSyntax.self), ref.argumentNames == nil {
            candidates = declarations[prefix + ref.baseName.text] ?? []
        } else if let member = expr.as(MemberAccessExprSyntax.self), member.declName.argumentNames == nil {
            let all = declarations[prefix + member.declName.baseName.text] ?? []
            let base = member.base?.trimmedDescription
            switch base {
            case nil, "self", "Self", "Self.self": candidates = all
            case let base? where base.first?.isUppercase == true:
                let type = base.split(separator: ".").last.map(String.init)
                candidates = all.filter { $0.type == type }
            default: candidates = all.filter { $0.type != nil }
            }
        } else {
            return nil
        }
        let values = Set(candidates.map(\.value))
        guard values.count == 1, let value = values.first, value != .other else { return nil }
        return value
    }
}

/// Collects the `let` and `var` declarations of a file for `PortIndex`.
private final class ConstantIndexer: SyntaxVisitor {
    let locals: Bool
    let functions: [String: [FunctionIndex.Function]]
    var declarations: [String: Set<PortIndex.Declaration>] = [:]
    private var types: [String] = []
    private var functionDepth = 0

    init(locals: Bool, functions: [String: [FunctionIndex.Function]]) {
        self.locals = locals
        self.functions = functions
        super.init(viewMode: .sourceAccurate)
    }

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind { types.append(node.name.text); return .visitChildren }
    override func visitPost(_ node: ClassDeclSyntax) { types.removeLast() }
    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind { types.append(node.name.text); return .visitChildren }
    override func visitPost(_ node: StructDeclSyntax) { types.removeLast() }
    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind { types.append(node.name.text); return .visitChildren }
    override func visitPost(_ node: EnumDeclSyntax) { types.removeLast() }
    override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind { types.append(node.name.text); return .visitChildren }
    override func visitPost(_ node: ActorDeclSyntax) { types.removeLast() }
    override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
        types.append(node.extendedType.trimmedDescription.split(separator: ".").last.map(String.init) ?? "")
        return .visitChildren
    }
    override func visitPost(_ node: ExtensionDeclSyntax) { types.removeLast() }

    // Bodies: their constants are locals.
    override func visit(_ node: CodeBlockSyntax) -> SyntaxVisitorContinueKind { enterBody() }
    override func visitPost(_ node: CodeBlockSyntax) { functionDepth -= 1 }
    override func visit(_ node: ClosureExprSyntax) -> SyntaxVisitorContinueKind { enterBody() }
    override func visitPost(_ node: ClosureExprSyntax) { functionDepth -= 1 }
    override func visit(_ node: AccessorBlockSyntax) -> SyntaxVisitorContinueKind { enterBody() }
    override func visitPost(_ node: AccessorBlockSyntax) { functionDepth -= 1 }

    private func enterBody() -> SyntaxVisitorContinueKind {
        functionDepth += 1
        return .visitChildren
    }

    override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
        guard functionDepth == 0 || locals else { return .skipChildren }
        let isLet = node.bindingSpecifier.tokenKind == .keyword(.let)
        for binding in node.bindings {
            guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text.trimmingBackticks else { continue }
            let value = isLet ? Self.value(of: binding.initializer?.value, functions: functions) : .other
            declarations[name, default: []].insert(.init(type: functionDepth == 0 ? types.last : nil, value: value))
        }
        return .visitChildren
    }

    // An enum's cases with raw values: `ModelFileExtension.bundle.rawValue`.
    override func visit(_ node: EnumCaseElementSyntax) -> SyntaxVisitorContinueKind {
        guard functionDepth == 0, let raw = node.rawValue?.value else { return .skipChildren }
        let value = Self.value(of: raw, functions: functions)
        declarations[PortIndex.caseKey + node.name.text.trimmingBackticks, default: []].insert(.init(type: types.last, value: value == .modelExtension ? value : .other))
        return .skipChildren
    }

    // Names that hide a constant in the file being ported: parameters, and the names
    // `if let`, `guard let`, `for … in` and `case let` bind.
    override func visit(_ node: FunctionParameterSyntax) -> SyntaxVisitorContinueKind { hide((node.secondName ?? node.firstName).text) }
    override func visit(_ node: ClosureParameterSyntax) -> SyntaxVisitorContinueKind { hide((node.secondName ?? node.firstName).text) }
    override func visit(_ node: ClosureShorthandParameterSyntax) -> SyntaxVisitorContinueKind { hide(node.name.text) }
    override func visit(_ node: EnumCaseParameterSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: OptionalBindingConditionSyntax) -> SyntaxVisitorContinueKind {
        if let name = node.pattern.as(IdentifierPatternSyntax.self) { _ = hide(name.identifier.text) }
        return .visitChildren
    }
    override func visit(_ node: ValueBindingPatternSyntax) -> SyntaxVisitorContinueKind {
        if let name = node.pattern.as(IdentifierPatternSyntax.self) { _ = hide(name.identifier.text) }
        return .visitChildren
    }
    override func visit(_ node: ForStmtSyntax) -> SyntaxVisitorContinueKind {
        if let name = node.pattern.as(IdentifierPatternSyntax.self) { _ = hide(name.identifier.text) }
        return .visitChildren
    }

    private func hide(_ name: String) -> SyntaxVisitorContinueKind {
        if locals && name != "_" { declarations[name.trimmingBackticks, default: []].insert(.init(type: nil, value: .other)) }
        return .visitChildren
    }

    static func value(of initializer: ExprSyntax?, functions: [String: [FunctionIndex.Function]]) -> PortIndex.Value {
        guard let initializer else { return .other }
        if let literal = initializer.as(StringLiteralExprSyntax.self)?.representedLiteralValue, ["momd", "mom", "cdm"].contains(literal) {
            return .modelExtension
        }
        if let macro = initializer.as(MacroExpansionExprSyntax.self), macro.macroName.text == "selector", macro.arguments.count == 1,
            let target = macro.arguments.first?.expression, let name = SelectorName(target, functions: functions)
        {
            return .selector(name)
        }
        return .other
    }
}
