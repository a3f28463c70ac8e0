import SwiftSyntax

/// A rule: what it watches for as the `SemanticWalker` reads a file, and its own state
/// for that file. A new instance reads each file. Every hook does nothing unless the
/// rule implements it.
protocol LintRule: AnyObject {
    static var description: RuleDescription { get }
    init()

    /// A call, before its arguments are read.
    func call(_ call: FunctionCallExprSyntax, _ walker: SemanticWalker)
    /// `name` (or `self.name`) used where it holds something the linter follows.
    func reference(_ node: ExprSyntax, name: String, _ binding: Binding, _ walker: SemanticWalker)
    /// `base.member`.
    func memberAccess(_ access: MemberAccessExprSyntax, _ walker: SemanticWalker)
    /// `target = value`, after both are read.
    func assignment(_ target: ExprSyntax, _ value: ExprSyntax, _ walker: SemanticWalker)
    func enterFunction(_ walker: SemanticWalker)
    func leaveFunction(_ walker: SemanticWalker)
    /// The end of the file.
    func finish(_ walker: SemanticWalker)
}

extension LintRule {
    func call(_ call: FunctionCallExprSyntax, _ walker: SemanticWalker) {}
    func reference(_ node: ExprSyntax, name: String, _ binding: Binding, _ walker: SemanticWalker) {}
    func memberAccess(_ access: MemberAccessExprSyntax, _ walker: SemanticWalker) {}
    func assignment(_ target: ExprSyntax, _ value: ExprSyntax, _ walker: SemanticWalker) {}
    func enterFunction(_ walker: SemanticWalker) {}
    func leaveFunction(_ walker: SemanticWalker) {}
    func finish(_ walker: SemanticWalker) {}

    func report(_ walker: SemanticWalker, at node: some SyntaxProtocol, message: String, fix: String) {
        walker.report(Self.description, at: node, message: message, fix: fix)
    }
}

/// Every rule, in the order of docs/lint.md.
public enum RuleCatalog {
    private static var ruleTypes: [any LintRule.Type] {[
        ObjectAcrossQueuesRule.self,
        ContextWithoutPerformRule.self,
        MainContextOffMainQueueRule.self,
        MergeOffQueueRule.self,
        MainQueueFetchAllRule.self,
        TemporaryIDHandoffRule.self,
        ChildSaveNotPropagatedRule.self,
        ConfinementTypeRule.self,
    ]}

    /// A new instance of each rule whose id is in `ids`, for one file.
    static func makeRules(_ ids: Set<String>) -> [any LintRule] {
        ruleTypes.filter { ids.contains($0.description.id) }.map { $0.init() }
    }

    public static let all: [RuleDescription] = ruleTypes.map { $0.description }

    public static let ids: [String] = all.map(\.id)

    public static func description(of id: String) -> RuleDescription? {
        all.first { $0.id == id }
    }
}
