import SwiftSyntax

/// Calls: argument labels, isolation settings, parameter uses, context names read,
/// and where a call runs (its placement among closures).
extension FactCollector {
    /// The type of a `let` of this function set once to `… as! T`, `… as? T` or `T(…)`.
    func localType(_ expression: ExprSyntax) -> String? {
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

    static func isLiteral(_ value: ExprSyntax) -> Bool {
        value.is(NilLiteralExprSyntax.self) || value.is(StringLiteralExprSyntax.self) || value.is(IntegerLiteralExprSyntax.self)
            || value.is(FloatLiteralExprSyntax.self) || value.is(BooleanLiteralExprSyntax.self) || value.is(ArrayExprSyntax.self)
            || value.is(DictionaryExprSyntax.self) || value.is(ClosureExprSyntax.self)
    }

    /// The number of a call's argument labels in `facts.labelTable`, added there the
    /// first time.
    func labelNumber(_ labels: String) -> Int32 {
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
    func recordIsolationSetting(_ node: FunctionCallExprSyntax, name: String) {
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
    func recordSessionDelegate(_ call: FunctionCallExprSyntax) {
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
    func recordParameterUse(_ node: FunctionCallExprSyntax) {
        guard let function = functions.last, function.name != "init", !function.initParameters.isEmpty,
            let member = node.calledExpression.as(MemberAccessExprSyntax.self),
            CoreDataAPI.contextMethods.contains(member.declName.baseName.text),
            let base = member.base?.as(DeclReferenceExprSyntax.self), let label = function.initParameters[base.baseName.text],
            placementOfCall(node) == .direct, !ClosurePlacement.isBoundByClosure(base.baseName.text, around: node)
        else { return }
        facts.contextParameterUses.append(
            ContextParameterUse(function: function.name, label: label, method: member.declName.baseName.text, place: place(member)))
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
    static func isConfinedUse(_ read: Syntax) -> Bool {
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

    func recordInitArguments(_ call: FunctionCallExprSyntax, type: String) {
        for argument in call.arguments {
            guard let label = argument.label?.text, Expressions.mentions(argument.expression, anyOf: ["ontext", "ConcurrencyType"]) else { continue }
            let text = Expressions.text(argument.expression)
            facts.initArguments.append(
                InitArgument(
                    type: type, label: label, evidence: Self.evidence(of: Syntax(Expressions.unwrapped(argument.expression))),
                    valueText: text, place: place(argument)))
        }
    }

    /// `self.handle` or `handle` handed as an argument: a function used as a value.
    static func functionValue(_ expression: ExprSyntax) -> String? {
        if let member = expression.as(MemberAccessExprSyntax.self), Expressions.isSelf(member.base) { return member.declName.baseName.text }
        return expression.as(DeclReferenceExprSyntax.self)?.baseName.text
    }

    /// `local.perform { call() }` where `local` is a `let` of this function made
    /// private right there (`newBackgroundContext()`), or set from a project function or
    /// property the index resolves: the call runs on that private context's queue.
    /// `performAndWait` runs its block on the caller's thread, and stays as it was.
    func refined(_ placement: CallPlacement, _ node: FunctionCallExprSyntax) -> CallPlacement {
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
    func isSelfProperty(_ expression: ExprSyntax, _ name: String) -> Bool {
        if let member = expression.as(MemberAccessExprSyntax.self) { return Expressions.isSelf(member.base) && member.declName.baseName.text == name }
        guard let reference = expression.as(DeclReferenceExprSyntax.self), reference.baseName.text == name else { return false }
        return functions.last?.locals.contains(name) != true
    }

    /// The closure a call is in that decides its placement: the innermost one that
    /// does not run right there.
    static func innermostPerform(around node: some SyntaxProtocol) -> ClosureExprSyntax? {
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
    static func placement(of node: some SyntaxProtocol) -> CallPlacement {
        var memo: [SyntaxIdentifier: CallPlacement] = [:]
        return placement(of: node, memo: &memo)
    }

    /// `placement(of:)`, with the placement of the code straight inside each closure
    /// met kept in `closurePlacements`: the calls in one closure share it, and finding
    /// a closure's shape is most of the cost.
    func placementOfCall(_ node: some SyntaxProtocol) -> CallPlacement {
        Self.placement(of: node, memo: &closurePlacements, table: apiTable)
    }

    /// `placement(of:)`, reading and filling `memo`: the placement of the code straight
    /// inside each closure, by the closure. Node kinds are read once a step (each
    /// `is(_:)` made a typed node).
    static func placement(of node: some SyntaxProtocol, memo: inout [SyntaxIdentifier: CallPlacement], table: APITable = .builtIn) -> CallPlacement {
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

    /// `addObserver(self, selector: "didSave:", name: NSManagedObjectContextDidSaveNotification, object: …)`:
    /// Swift 2 named a selector by a string (Swift 2.2 brought `#selector`, SE-0022); its
    /// method before the first colon is a did-save observer, as a `#selector`'s is.
    func recordStringSelector(_ call: FunctionCallExprSyntax) {
        guard let selector = Expressions.argument("selector", of: call)?.as(StringLiteralExprSyntax.self),
            let name = Expressions.argument("name", of: call), CoreDataAPI.didSaveNotifications.contains(Expressions.lastName(name) ?? ""),
            case let text = selector.segments.compactMap({ $0.as(StringSegmentSyntax.self)?.content.text }).joined()
        else { return }
        let method = String(text.prefix { $0 != ":" })
        guard !method.isEmpty else { return }
        facts.escapingNames.insert(method)
        facts.didSaveSelectors.insert(method)
    }
}
