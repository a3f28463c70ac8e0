import SwiftSyntax

/// A method a `#selector` or an Objective-C selector string names, as the Swift call
/// the port writes instead: its base name, argument labels, and whether it throws.
struct SelectorName: Hashable, Sendable {
    var base: String
    /// The argument labels, `_` for an unlabeled one.
    var labels: [String]
    /// The method throws, as the file that names it declares it.
    var throwing: Bool

    init(base: String, labels: [String], throwing: Bool) {
        self.base = base
        self.labels = labels
        self.throwing = throwing
    }

    /// The method `#selector(target)` names: `m(_:)`, `Type.m(label:)`, or a bare `m`
    /// when the file's functions named `m` all take the same labels.
    init?(_ target: ExprSyntax, functions: [String: [FunctionIndex.Function]]) {
        let ref: DeclReferenceExprSyntax
        if let r = target.as(DeclReferenceExprSyntax.self) {
            ref = r
        } else if let member = target.as(MemberAccessExprSyntax.self) {
            ref = member.declName
        } else {
            return nil
        }
        let base = ref.baseName.text.trimmingBackticks
        let declared = functions[base] ?? []
        let labels: [String]
        if let names = ref.argumentNames {
            labels = names.arguments.map { $0.name.text }
        } else {
            let distinct = Set(declared.map(\.labels))
            guard distinct.count == 1, let only = distinct.first else { return nil }
            labels = only
        }
        self.init(base: base, labels: labels, throwing: declared.contains { $0.labels == labels && $0.throwing })
    }

    /// The method of the file whose Objective-C name is `objectiveC` (`update:`,
    /// `mergeWithChanges:`, or an `@objc(name:)`), else the one the name spells without
    /// doubt (`a:b:` is `a(_:b:)`, unless `a` is a method of the file that takes other
    /// labels); nil when no method of the file has it and its first part has a `With`.
    init?(objectiveC: String, functions: [String: [FunctionIndex.Function]]) {
        let matches = functions.values.joined().filter { $0.objectiveCName == objectiveC }
        if let first = matches.first, matches.allSatisfy({ $0.base == first.base && $0.labels == first.labels }) {
            self.init(base: first.base, labels: first.labels, throwing: matches.contains { $0.throwing })
            return
        }
        var parts = objectiveC.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let hasArguments = parts.count > 1
        if hasArguments { parts.removeLast() }
        guard let base = parts.first, !base.isEmpty, !base.contains("With"), functions[base] == nil,
            parts.dropFirst().allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } })
        else { return nil }
        self.init(base: base, labels: hasArguments ? ["_"] + parts.dropFirst() : [], throwing: false)
    }

    /// `m(note)`, `m(notification: note)` with `arguments` in order; `try! ` before a throwing one.
    func call(on receiver: String?, _ arguments: [String]) -> String {
        let parts = zip(labels, arguments).map { $0 == "_" ? $1 : "\($0): \($1)" }
        let target = receiver.map { "\($0).\(base)" } ?? base
        return (throwing ? "try! " : "") + "\(target)(\(parts.joined(separator: ", ")))"
    }

    /// Objective-C's name for the method, as Swift gives it: `m`, `m:`, `mWithLabel:other:`.
    var objectiveCName: String {
        guard let first = labels.first else { return base }
        let head = first == "_" ? base : base + "With" + first.capitalizedFirst
        return ([head] + labels.dropFirst().map { $0 == "_" ? "" : $0 }).map { $0 + ":" }.joined()
    }

    /// How Swift spells it: `m(_:label:)`.
    var swiftName: String { "\(base)(\(labels.map { $0 + ":" }.joined()))" }
}

/// The functions a file declares, by base name.
enum FunctionIndex {
    struct Function: Hashable, Sendable {
        var base: String
        var labels: [String]
        var throwing: Bool
        /// Its `@objc(name)`, else the name Swift gives it.
        var objectiveCName: String
        /// It has a result type (not `Void` or `()`).
        var returnsValue = false
    }

    static func functions(in tree: SourceFileSyntax) -> [String: [Function]] {
        let collector = Collector(viewMode: .sourceAccurate)
        collector.walk(tree)
        return collector.functions
    }

    private final class Collector: SyntaxVisitor {
        var functions: [String: [Function]] = [:]

        override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
            let base = node.name.text.trimmingBackticks
            let labels = node.signature.parameterClause.parameters.map { $0.firstName.text.trimmingBackticks }
            let throwing = node.signature.effectSpecifiers?.throwsClause != nil
            let name = SelectorName(base: base, labels: labels, throwing: throwing)
            var explicit: String?
            for element in node.attributes {
                if case .attribute(let a) = element, a.attributeName.trimmedDescription == "objc", let arguments = a.arguments {
                    explicit = arguments.trimmedDescription
                }
            }
            let result = node.signature.returnClause?.type.trimmedDescription
            functions[base, default: []].append(
                Function(base: base, labels: labels, throwing: throwing, objectiveCName: explicit ?? name.objectiveCName, returnsValue: result != nil && result != "Void" && result != "()"))
            return .skipChildren
        }
    }
}
