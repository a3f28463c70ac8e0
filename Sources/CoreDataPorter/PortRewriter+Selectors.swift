import SwiftParser
import SwiftSyntax

/// Selectors the port makes Swift calls of (Linux has no Objective-C runtime, so no
/// `Selector`, `#selector` or `NSSelectorFromString`):
///
/// - `center.addObserver(x, selector: S, name: n, object: o)` →
///   `center.addObserver(x, name: n, object: o) { observer, note in observer.m(note) }`,
///   where `S` is `#selector(m(_:))` or a `let` of one (PortIndex: in this file or
///   another ported one);
/// - `let sel = #selector(m(_:))` → `let sel = Selector("m:")`: the constant keeps its
///   name and type, CoreData's `Selector` of the Objective-C name (Linux has no
///   Objective-C selectors; CoreData's `NSSortDescriptor(key:ascending:selector:)` reads
///   it), for whatever else reads it;
/// - `perform(S)`, `perform(S, with: a)`, `x.perform(S, with: a, with: b)` → `m()`,
///   `m(a)`, `x.m(a, b)` when `S` is a `#selector`, a constant of one, or
///   `NSSelectorFromString("m:")` of a literal naming a method; refused otherwise, at
///   its line, as are the delayed and threaded forms (`afterDelay:`, `onMainThread:`).
///
/// A method that `throws` is called with `try!`. Swift gives a throwing `@objc` method
/// the Objective-C name `m:error:`; the notification center and `perform` call it
/// without the error pointer, so it runs, and an error it throws is written through a
/// pointer nobody passed. With `try!` the method runs as it did, and a thrown error
/// stops the program with the error at the caller's line instead. Whether it throws is read
/// from this file, else from the other ported files' `@objc` methods (PortIndex).
extension PortRewriter {
    static let performForms: Set<[String]> = [
        ["_"], ["_", "with"], ["_", "with", "with"], ["_", "with", "afterDelay"], ["_", "with", "afterDelay", "inModes"],
        ["_", "on", "with", "waitUntilDone"], ["_", "on", "with", "waitUntilDone", "modes"],
    ]

    enum SelectorArgument {
        /// Not a selector: another API of the same name (`context.perform { }`).
        case notSelector
        case name(SelectorName)
        /// A selector the port cannot name a method by, and why.
        case refused(String)
    }

    /// What the selector expression `expr` names.
    func selectorArgument(_ expr: ExprSyntax) -> SelectorArgument {
        if let macro = expr.as(MacroExpansionExprSyntax.self), macro.macroName.text == "selector" {
            guard macro.arguments.count == 1, let argument = macro.arguments.first, argument.label == nil else {
                return .refused("\(macro.trimmedDescription) names a property's accessor, which the port cannot call for you; call the property itself")
            }
            if let name = SelectorName(argument.expression, functions: functions) { return .name(throwingElsewhere(name)) }
            let target = argument.expression.trimmedDescription
            return .refused(
                "cannot tell how many arguments \(target) takes (it is not declared in this file); spell the selector with its labels, #selector(\(target)(_:)) for a method that takes the notification"
            )
        }
        if let call = expr.as(FunctionCallExprSyntax.self), Self.calleeName(call) == "NSSelectorFromString", call.arguments.count == 1 {
            guard let literal = call.arguments.first?.expression.as(StringLiteralExprSyntax.self)?.representedLiteralValue else {
                return .refused(
                    "NSSelectorFromString of a value that is not a string literal names its method only at run time, through the Objective-C runtime, which Linux does not have; call the method itself, or keep closures by name ([String: () -> Void])"
                )
            }
            if let name = SelectorName(objectiveC: literal, functions: functions) { return .name(name) }
            return .refused("no method of this file has the Objective-C name \"\(literal)\", so the port cannot tell which to call; call the method itself")
        }
        if case .selector(let name)? = index.value(of: expr) { return .name(throwingElsewhere(name)) }
        return .notSelector
    }

    /// `name`, throwing when this file does not declare it and another ported file
    /// declares a method of that Swift name that throws.
    func throwingElsewhere(_ name: SelectorName) -> SelectorName {
        guard !name.throwing, !(functions[name.base] ?? []).contains(where: { $0.labels == name.labels }),
            index.throwingMethods.contains(name.swiftName)
        else { return name }
        var thrown = name
        thrown.throwing = true
        return thrown
    }

    /// `center.addObserver(x, selector: S, name: n, object: o)` as
    /// `center.addObserver(x, name: n, object: o) { observer, note in observer.m(note) }`.
    func portSelectorObserver(_ node: FunctionCallExprSyntax) -> ExprSyntax? {
        let arguments = Array(node.arguments)
        guard arguments.map({ $0.label?.text }) == [nil, "selector", "name", "object"], node.trailingClosure == nil else { return nil }
        let method: SelectorName
        switch selectorArgument(arguments[1].expression) {
        case .name(let name) where name.labels.count <= 1:
            method = name
        case .name(let name):
            report(at: arguments[1].expression, "a notification observer's method takes the notification or nothing; \(name.swiftName) takes \(name.labels.count) arguments")
            return ExprSyntax(node)
        case .refused(let message):
            report(at: arguments[1].expression, message)
            return ExprSyntax(node)
        case .notSelector:
            report(
                at: arguments[1].expression,
                "the port cannot tell which method \(arguments[1].expression.trimmedDescription) names (it is not a #selector, nor a `let` of one in the ported sources); write #selector(method(_:)) here"
            )
            return ExprSyntax(node)
        }
        changed = true
        usesPortedCoreDataAPI = true
        // Drop the selector argument; its leading trivia (a line break) goes to `name:`.
        var name = arguments[2]
        name.leadingTrivia = Self.merge(arguments[1].leadingTrivia, name.leadingTrivia)
        let kept = [arguments[0], name, arguments[3]]
        let closure = Parser.parse(source: "f { observer, note in \(method.call(on: "observer", ["note"])) }").statements.first!.item.as(ExprSyntax.self)!
            .as(FunctionCallExprSyntax.self)!.trailingClosure!
        var rewritten = node.with(\.arguments, LabeledExprListSyntax(kept))
        let after = rewritten.rightParen?.trailingTrivia ?? []
        rewritten.rightParen = rewritten.rightParen?.with(\.trailingTrivia, [])
        rewritten.trailingClosure = closure.with(\.leadingTrivia, .space).with(\.trailingTrivia, after)
        return super.visit(rewritten)
    }

    /// `statements` with each local `let sel = #selector(m(_:))` followed by `; _ = sel` on
    /// its line: its uses were ported into calls, and a local nothing reads would draw the
    /// compiler's "never used" warning. Nil when it has none.
    func readingLocalSelectorConstants(_ statements: CodeBlockItemListSyntax) -> CodeBlockItemListSyntax? {
        let names = statements.map { item -> String? in
            guard let decl = item.item.as(VariableDeclSyntax.self), decl.bindingSpecifier.tokenKind == .keyword(.let), decl.bindings.count == 1,
                let binding = decl.bindings.first, let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
                let macro = binding.initializer?.value.as(MacroExpansionExprSyntax.self), macro.macroName.text == "selector",
                case .name = selectorArgument(ExprSyntax(macro))
            else { return nil }
            return name
        }
        guard names.contains(where: { $0 != nil }) else { return nil }
        var items: [CodeBlockItemSyntax] = []
        for (item, name) in zip(statements, names) {
            var visited = rewrite(Syntax(item)).cast(CodeBlockItemSyntax.self)
            guard let name else {
                items.append(visited)
                continue
            }
            let after = visited.trailingTrivia
            visited.trailingTrivia = []
            if visited.semicolon == nil { visited.semicolon = .semicolonToken() }
            let read = Parser.parse(source: "_ = \(name)").statements.first!.with(\.leadingTrivia, .space).with(\.trailingTrivia, after)
            items += [visited, read]
        }
        return CodeBlockItemListSyntax(items)
    }

    /// Whether `statements` are a function's or a closure's (also in an `#if` there), not
    /// the file's, where an added expression would not compile.
    static func isInBody(_ statements: CodeBlockItemListSyntax) -> Bool {
        var node = statements.parent
        while let n = node {
            if n.is(CodeBlockSyntax.self) || n.is(ClosureExprSyntax.self) || n.is(SwitchCaseSyntax.self) { return true }
            if n.is(SourceFileSyntax.self) || n.is(MemberBlockSyntax.self) { return false }
            node = n.parent
        }
        return false
    }

    /// `Selector("m:")`, CoreData's, with the trivia of the `#selector` it replaces.
    static func coreDataSelector(_ name: SelectorName, replacing macro: MacroExpansionExprSyntax) -> ExprSyntax {
        let selector = Parser.parse(source: "Selector(\(literal(name.objectiveCName)))").statements.first!.item.as(ExprSyntax.self)!
        return selector.with(\.leadingTrivia, macro.leadingTrivia).with(\.trailingTrivia, macro.trailingTrivia)
    }

    /// `NSSortDescriptor(key: k, ascending: a, selector: #selector(NSString.m(_:)))` with
    /// CoreData's `Selector("m:")`, which its sorts read.
    func portSortSelector(_ node: FunctionCallExprSyntax) -> ExprSyntax? {
        var arguments = Array(node.arguments)
        guard let macro = arguments[2].expression.as(MacroExpansionExprSyntax.self), macro.macroName.text == "selector",
            case .name(let name) = selectorArgument(ExprSyntax(macro))
        else { return nil }
        arguments[2] = arguments[2].with(\.expression, Self.coreDataSelector(name, replacing: macro))
        changed = true
        usesPortedCoreDataAPI = true
        return super.visit(node.with(\.arguments, LabeledExprListSyntax(arguments)))
    }

    /// `let sel = #selector(m(_:))` as `let sel = Selector("m:")`.
    func portSelectorConstants(_ node: VariableDeclSyntax) -> VariableDeclSyntax {
        guard node.bindingSpecifier.tokenKind == .keyword(.let) else { return node }
        var bindings: [PatternBindingSyntax] = []
        var didChange = false
        for binding in node.bindings {
            guard let initializer = binding.initializer, let macro = initializer.value.as(MacroExpansionExprSyntax.self), macro.macroName.text == "selector",
                case .name(let name) = selectorArgument(ExprSyntax(macro))
            else {
                bindings.append(binding)
                continue
            }
            var b = binding
            b.initializer = initializer.with(\.value, Self.coreDataSelector(name, replacing: macro))
            bindings.append(b)
            didChange = true
        }
        guard didChange else { return node }
        changed = true
        usesPortedCoreDataAPI = true
        return node.with(\.bindings, PatternBindingListSyntax(bindings))
    }
}
