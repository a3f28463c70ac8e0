import SwiftParser
import SwiftSyntax

/// Key-value coding of `@objc` properties, which Linux has no Objective-C runtime for.
/// On Apple platforms `value(forKey: "firstInitial")` reads any `@objc` property (an
/// `NSFetchedResultsController` sections by a computed one; a predicate evaluated in
/// memory names one). After each `@objc var` of a class or an extension of one, on its
/// last line, the port writes an enum CoreData's `value(forKey:)` finds by name
/// (CoreData's PortedKeyValueAccessor.swift):
///
///     @objc var firstInitial: String? { … }
///
/// becomes
///
///     var firstInitial: String? { … }; enum __PortedKey_firstInitial: PortedKeyValueAccessor { static func portedValue(of object: Any) -> Any? { (object as! Book).firstInitial as Any? } }
///
/// with `setPortedValue` too when the property can be set (stored, or with a `set`).
/// Left as they are: `static` and `class` properties, a property of a generic type, of a
/// class nested in one or in a function, or of a constrained extension (the enum would be
/// generic too), one isolated to a global actor
/// (the enum's functions are not), and a getter that is `async` or `throws`.
extension PortRewriter {
    /// `visited`'s members (`original`'s, visited) with an accessor after each `@objc`
    /// property of the type `typeName`; nil when it has none.
    func addingKeyValueAccessors(to visited: MemberBlockSyntax, original: MemberBlockSyntax, typeName: String) -> MemberBlockSyntax? {
        let originals = Array(original.members)
        var members = Array(visited.members)
        guard originals.count == members.count else { return nil }
        var added = false
        for i in originals.indices.reversed() {
            guard let variable = originals[i].decl.as(VariableDeclSyntax.self), let text = Self.keyValueAccessor(of: variable, in: typeName) else { continue }
            let decl = Parser.parse(source: text).statements.first!.item.as(DeclSyntax.self)!
            var item = members[i]
            // Before the member's trailing trivia (a `// comment` ends the line).
            let after = item.semicolon?.trailingTrivia ?? item.decl.trailingTrivia
            item.decl.trailingTrivia = item.semicolon == nil ? [] : item.decl.trailingTrivia
            item.semicolon = .semicolonToken(trailingTrivia: .space)
            let accessor = MemberBlockItemSyntax(decl: decl.with(\.leadingTrivia, []).with(\.trailingTrivia, after))
            members[i] = item
            members.insert(accessor, at: i + 1)
            added = true
        }
        guard added else { return nil }
        changed = true
        usesCoreDataTypes = true
        return visited.with(\.members, MemberBlockItemListSyntax(members))
    }

    /// The accessor enum's text for `variable`, a member of `typeName`, or nil when it is
    /// not an `@objc` instance property the port can give one.
    static func keyValueAccessor(of variable: VariableDeclSyntax, in typeName: String) -> String? {
        guard hasAttribute("objc", variable.attributes), !hasAttribute("NSManaged", variable.attributes), !hasGlobalActor(variable.attributes),
            !variable.modifiers.contains(where: { [.keyword(.static), .keyword(.class)].contains($0.name.tokenKind) }),
            variable.bindings.count == 1, let binding = variable.bindings.first,
            let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier
        else { return nil }
        var settable = variable.bindingSpecifier.tokenKind == .keyword(.var)
        switch binding.accessorBlock?.accessors {
        case nil: break
        case .getter: settable = false
        case .accessors(let list):
            if list.contains(where: { $0.accessorSpecifier.tokenKind == .keyword(.get) && $0.effectSpecifiers != nil }) { return nil }
            let kinds = Set(list.map(\.accessorSpecifier.tokenKind))
            // A stored property with observers can be set; a computed one needs a `set`.
            let observed = kinds.isSubset(of: [.keyword(.willSet), .keyword(.didSet)])
            settable = settable && (observed || kinds.contains(.keyword(.set)))
        }
        let key = name.text.trimmingBackticks
        let object = "(object as! \(typeName))"
        var text = "enum __PortedKey_\(key): PortedKeyValueAccessor { static func portedValue(of object: Any) -> Any? { \(object).\(name.text) as Any? }"
        if settable, let type = binding.typeAnnotation?.type {
            let spelled = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self).map { "\($0.wrappedType.trimmedDescription)?" } ?? type.trimmedDescription
            text += " static func setPortedValue(_ value: Any?, of object: Any) -> Bool { \(object).\(name.text) = value as! \(spelled); return true }"
        }
        return text + " }"
    }

    /// The name the accessors spell the type by, or nil when it cannot have them: a
    /// generic class, or an extension with generic arguments or a `where` clause.
    static func accessorTypeName(ofClass node: ClassDeclSyntax, path: [String]) -> String? {
        guard node.genericParameterClause == nil, !hasGlobalActor(node.attributes), !inGenericOrLocalScope(node) else { return nil }
        return path.joined(separator: ".")
    }

    static func accessorTypeName(ofExtension node: ExtensionDeclSyntax) -> String? {
        let name = node.extendedType.trimmedDescription
        guard node.genericWhereClause == nil, !name.contains("<"), !hasGlobalActor(node.attributes) else { return nil }
        return name
    }

    /// Whether `node` is nested in a generic type (its accessor would be generic too, and
    /// the class's plain name would not compile) or in a function (a local class).
    private static func inGenericOrLocalScope(_ node: some SyntaxProtocol) -> Bool {
        var current = node.parent
        while let n = current {
            if let c = n.as(ClassDeclSyntax.self), c.genericParameterClause != nil { return true }
            if let s = n.as(StructDeclSyntax.self), s.genericParameterClause != nil { return true }
            if let e = n.as(EnumDeclSyntax.self), e.genericParameterClause != nil { return true }
            if let x = n.as(ExtensionDeclSyntax.self), x.genericWhereClause != nil || x.extendedType.trimmedDescription.contains("<") { return true }
            if n.is(FunctionDeclSyntax.self) || n.is(ClosureExprSyntax.self) || n.is(AccessorBlockSyntax.self) || n.is(InitializerDeclSyntax.self) { return true }
            current = n.parent
        }
        return false
    }

    private static func hasAttribute(_ name: String, _ attributes: AttributeListSyntax) -> Bool {
        attributes.contains { element in
            if case .attribute(let a) = element { return a.attributeName.trimmedDescription == name }
            return false
        }
    }

    private static func hasGlobalActor(_ attributes: AttributeListSyntax) -> Bool {
        attributes.contains { element in
            if case .attribute(let a) = element { return a.attributeName.trimmedDescription.hasSuffix("Actor") }
            return false
        }
    }
}
