import SwiftParser
import SwiftSyntax

/// Casts between fetch requests. Objective-C's generics are erased, so on Apple
/// platforms `request as! NSFetchRequest<Mood>` always succeeds; on Linux
/// `NSFetchRequest` is a Swift generic class and a cast between two of its
/// specializations aborts (`as!`) or gives nil (`as?`). The copy makes the request
/// with CoreData's converting initializers instead, on the same lines:
///
/// - `x as! NSFetchRequest<Mood>` → `NSFetchRequest<Mood>(x)`: the same request with
///   another result type, as the cast gives on Apple platforms;
/// - `x as? NSFetchRequest<Mood>` → `NSFetchRequest<Mood>(fitting: x)`: that, or nil
///   when what `x` fetches cannot be a `Mood`;
/// - `x is NSFetchRequest<Mood>` → `(NSFetchRequest<Mood>(fitting: x) != nil)`.
///
/// A cast in a pattern (`case let r as NSFetchRequest<Mood>`, `case is …`) cannot become
/// a call: it is reported, with the `if let` to write instead.
extension PortRewriter {
    static let patternCastMessage =
        "a pattern cannot convert a fetch request: on Linux `case let r as NSFetchRequest<Mood>` and `case is NSFetchRequest<Mood>` never match a request of another result type, where Objective-C's erased generics always do; write `if let r = NSFetchRequest<Mood>(fitting: request)` instead"

    /// Operators that bind tighter than `as`: their operands stay in the cast's operand
    /// (`a + b as! T` casts `a + b`). Every other operator binds looser.
    static let tighterThanCasts: Set<String> = ["..<", "...", "+", "-", "&+", "&-", "|", "^", "*", "/", "%", "&*", "&", "<<", ">>", "&<<", "&>>"]

    /// `sequence` (`original` after its children were visited) with its fetch-request
    /// casts made conversions, or nil when it has none. Reports point into `original`,
    /// which is still in the file's tree.
    func portFetchRequestCasts(_ sequence: SequenceExprSyntax, original: SequenceExprSyntax) -> SequenceExprSyntax? {
        var elements = Array(sequence.elements)
        var didChange = false
        var i = 1
        while i + 1 < elements.count {
            guard let type = elements[i + 1].as(TypeExprSyntax.self)?.type, Self.isFetchRequestType(type) else {
                i += 1
                continue
            }
            let template: (String, String) -> String
            switch elements[i].as(UnresolvedAsExprSyntax.self)?.questionOrExclamationMark?.tokenKind {
            case .postfixQuestionMark?: template = { type, operand in "\(type)(fitting: \(operand))" }
            case _?: template = { type, operand in "\(type)(\(operand))" }  // as!
            case nil where elements[i].is(UnresolvedIsExprSyntax.self): template = { type, operand in "(\(type)(fitting: \(operand)) != nil)" }
            default:
                // A plain `as`: an upcast, or a pattern's cast (`case let r as NSFetchRequest<Mood>`).
                if elements[i - 1].is(PatternExprSyntax.self) { report(at: original.parent?.parent?.as(ValueBindingPatternSyntax.self).map(Syntax.init) ?? Syntax(original), Self.patternCastMessage) }
                i += 1
                continue
            }
            let start = Self.castOperandStart(elements, cast: i)
            elements.replaceSubrange(start...(i + 1), with: [Self.conversion(of: Array(elements[start..<i]), cast: elements[i], type: elements[i + 1], template: template)])
            didChange = true
            i = start + 1
        }
        guard didChange else { return nil }
        changed = true
        usesCoreDataTypes = true
        return sequence.with(\.elements, ExprListSyntax(elements))
    }

    /// `NSFetchRequest<T>` or `CoreData.NSFetchRequest<T>`.
    static func isFetchRequestType(_ type: TypeSyntax) -> Bool {
        if let t = type.as(IdentifierTypeSyntax.self) { return t.name.text == "NSFetchRequest" && t.genericArgumentClause != nil }
        if let t = type.as(MemberTypeSyntax.self) {
            return t.name.text == "NSFetchRequest" && t.genericArgumentClause != nil && t.baseType.trimmedDescription == "CoreData"
        }
        return false
    }

    /// The first element of the operand of the cast at `cast`: back over operators that
    /// bind tighter than `as` (and earlier casts, which associate to the left).
    static func castOperandStart(_ elements: [ExprSyntax], cast: Int) -> Int {
        var start = cast - 1
        while start >= 2 {
            let op = elements[start - 1]
            let tighter = op.is(UnresolvedAsExprSyntax.self) || op.is(UnresolvedIsExprSyntax.self)
                || (op.as(BinaryOperatorExprSyntax.self).map { tighterThanCasts.contains($0.operator.text) } ?? false)
            guard tighter else { break }
            start -= 2
        }
        return start
    }

    /// `Type(label operand)`, with the operand's leading trivia before it, the type's
    /// trailing trivia after it, and the line breaks (and comments) between the operand
    /// and the type inside the parentheses, so the lines stay where they were.
    static func conversion(of operand: [ExprSyntax], cast: ExprSyntax, type: ExprSyntax, template: (String, String) -> String) -> ExprSyntax {
        let full = Array(operand.map(\.description).joined().utf8)
        let leading = operand[0].leadingTrivia
        let inner = String(decoding: full.dropFirst(leading.description.utf8.count).dropLast(operand[operand.count - 1].trailingTrivia.description.utf8.count), as: UTF8.self)
        var kept = operand[operand.count - 1].trailingTrivia.pieces
        for token in cast.tokens(viewMode: .sourceAccurate) { kept += token.leadingTrivia.pieces + token.trailingTrivia.pieces }
        kept += type.leadingTrivia.pieces
        if !kept.contains(where: { !$0.isSpaceOrTab }) { kept = [] }
        // The spaces around `as!` go; the indentation of a line the cast began stays.
        while let last = kept.last, last.isSpaceOrTab, kept.count >= 2, !kept[kept.count - 2].isNewline { kept.removeLast() }
        let text = template(type.trimmedDescription, inner + Trivia(pieces: kept).description)
        let expr = Parser.parse(source: text).statements.first!.item.as(ExprSyntax.self)!
        return expr.with(\.leadingTrivia, leading).with(\.trailingTrivia, type.trailingTrivia)
    }
}
