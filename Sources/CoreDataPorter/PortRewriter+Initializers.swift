import SwiftParser
import SwiftSyntax

/// Core Data's designated initializer, `init(entity:insertInto:)`, in a subclass of
/// `NSManagedObject`. On Linux CoreData's is `required` (the runtime makes each object
/// of a class it holds as a metatype, through it), and Swift spells an override of a
/// required initializer `required`, not `override`; and a subclass with initializers
/// of its own inherits none, so it must declare that one itself. On the same lines:
///
/// - `override init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?)`
///   becomes `required init(…)` (`public required` in a public or open class; a
///   `private` or `fileprivate` one becomes internal, as a required initializer is
///   visible wherever its class is);
/// - a subclass that declares a designated initializer and not that one gets
///   `required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) { super.init(entity: entity, insertInto: context) }`
///   right after its opening brace, as Objective-C gave it by inheritance.
extension PortRewriter {
    /// `node` (after its children were visited) with its initializers ported, or nil
    /// when it is not a direct subclass of `NSManagedObject` or needs nothing.
    func portManagedObjectInitializers(_ node: ClassDeclSyntax) -> ClassDeclSyntax? {
        guard let inherited = node.inheritanceClause?.inheritedTypes.first?.type.trimmedDescription,
            inherited == "NSManagedObject" || inherited == "CoreData.NSManagedObject"
        else { return nil }
        let isPublic = node.modifiers.contains { [.keyword(.public), .keyword(.open)].contains($0.name.tokenKind) }
        var members = Array(node.memberBlock.members)
        var hasEntityInitializer = false
        var hasDesignatedInitializer = false
        for (i, member) in members.enumerated() {
            guard let initializer = member.decl.as(InitializerDeclSyntax.self) else { continue }
            let isConvenience = initializer.modifiers.contains { $0.name.tokenKind == .keyword(.convenience) }
            if !isConvenience { hasDesignatedInitializer = true }
            guard Self.isEntityInitializer(initializer) else { continue }
            hasEntityInitializer = true
            guard let required = Self.madeRequired(initializer, inPublicClass: isPublic) else { continue }
            members[i] = member.with(\.decl, DeclSyntax(required))
        }
        var ported = node
        if !hasEntityInitializer && hasDesignatedInitializer {
            let modifier = isPublic ? "public " : ""
            let text = " \(modifier)required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) { super.init(entity: entity, insertInto: context) }"
            let decl = Parser.parse(source: "class C {\(text)}").statements.first!.item.as(ClassDeclSyntax.self)!.memberBlock.members.first!.decl
            // After the opening brace, before a comment that followed it on its line.
            let braceTrivia = ported.memberBlock.leftBrace.trailingTrivia
            ported.memberBlock.leftBrace.trailingTrivia = []
            let item = MemberBlockItemSyntax(decl: decl.with(\.leadingTrivia, .space).with(\.trailingTrivia, []), semicolon: .semicolonToken(trailingTrivia: braceTrivia))
            members.insert(item, at: 0)
        } else if members.elementsEqual(node.memberBlock.members, by: { $0.id == $1.id }) {
            return nil
        }
        ported.memberBlock.members = MemberBlockItemListSyntax(members)
        changed = true
        usesCoreDataTypes = true
        return ported
    }

    /// `init(entity:insertInto:)`, by its labels.
    static func isEntityInitializer(_ initializer: InitializerDeclSyntax) -> Bool {
        let labels = initializer.signature.parameterClause.parameters.map(\.firstName.text)
        return labels == ["entity", "insertInto"]
    }

    /// The initializer with `override` made `required` (and its access made visible), or
    /// nil when it has no `override` (already `required`).
    static func madeRequired(_ initializer: InitializerDeclSyntax, inPublicClass isPublic: Bool) -> InitializerDeclSyntax? {
        guard initializer.modifiers.contains(where: { $0.name.tokenKind == .keyword(.override) }) else { return nil }
        var modifiers: [DeclModifierSyntax] = []
        // A dropped modifier's leading trivia (a line's indentation) goes to the next one.
        var carried: Trivia = []
        for modifier in initializer.modifiers {
            var kept = modifier
            switch modifier.name.tokenKind {
            case .keyword(.override):
                kept = modifier.with(\.name, .keyword(.required, leadingTrivia: modifier.name.leadingTrivia, trailingTrivia: modifier.name.trailingTrivia))
            case .keyword(.private), .keyword(.fileprivate):
                guard isPublic else {
                    carried = carried + modifier.leadingTrivia
                    continue
                }
                kept = modifier.with(\.name, .keyword(.public, leadingTrivia: modifier.name.leadingTrivia, trailingTrivia: modifier.name.trailingTrivia)).with(\.detail, nil)
            default:
                break
            }
            kept.leadingTrivia = carried + kept.leadingTrivia
            carried = []
            modifiers.append(kept)
        }
        let result = initializer.with(\.modifiers, DeclModifierListSyntax(modifiers))
        return result
    }
}
