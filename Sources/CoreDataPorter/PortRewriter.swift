import SwiftParser
import SwiftSyntax

/// Rewrites one Swift file of an Apple Core Data model layer so it builds on Linux
/// against ctxdebug's `CoreData`. It overrides `visit` only for the node kinds it
/// changes and returns every other node as it is, so a file with nothing to port comes
/// out byte for byte. Every edit stays on the lines it replaces (removed attributes
/// leave their trivia behind; added accessors and closures go on the same line), so
/// each line of the output is the same line of the original.
///
/// - `@NSManaged var x: T` becomes `var x: T { get { managedValue(forKey: "x") } set { … } }`.
/// - `@NSManaged func addToNotes(_:)` and the rest of Xcode's to-many accessors get bodies
///   through `mutableSetValue(forKey:)` / `mutableOrderedSetValue(forKey:)`.
/// - `@objc`, `@objc(Name)`, `@objcMembers` and `dynamic` are removed; an `@objc var`
///   gets an accessor for key-value coding on its last line (PortRewriter+KeyValueAccessors.swift).
/// - `#keyPath(Type.a.b)` becomes `"a.b"`.
/// - `addObserver(x, selector: #selector(m(_:)), name:object:)` becomes
///   `addObserver(x, name:object:) { observer, note in observer.m(note) }`, and
///   `removeObserver(x…)` becomes `removeObserver(ported: x…)` (CoreData's
///   NotificationCenter+Ported.swift says how the two behave).
///   The selector may be a `let` of one; `perform` of a selector is a direct call
///   (PortRewriter+Selectors.swift, PortRewriter+Perform.swift).
/// - Uses of `URLSession` and its types are noted, so the file gets `import FoundationNetworking`.
/// - `bundle.url(forResource: m, withExtension: "momd")` (and `path(forResource:ofType:)`,
///   `url(forResource:withExtension:subdirectory:)` of a version in `Model.momd`,
///   `urls(forResourcesWithExtension:subdirectory:)`, and `"mom"`, `"omo"`, `"cdm"`, or a constant
///   of one: PortIndex) becomes `url(forModelResource:withExtension:)` (and its kin),
///   CoreData's lookup of the Xcode model, as Linux has no compiled one; another resource
///   of `Bundle.main` becomes `url(forPortedResource:withExtension:)`, which also searches
///   the program's SwiftPM resource bundles, where Linux has an app's resources.
/// - A top-level `import UIKit`, `AppKit` or `Cocoa` is taken out and noted, so the file
///   gets it back behind `#if canImport`, with what it brought that Linux has.
/// - `x as! NSFetchRequest<T>` and `as?` become CoreData's conversions (PortRewriter+Casts.swift).
/// - `NSClassFromString(name)` becomes `NSClassFromString(ported: name)`.
/// - `Bundle(identifier: id)` becomes `Bundle(portedIdentifier: id)`: Linux has no
///   framework bundles, and CoreData's gives the program's, whose resources hold the models.
/// - `Bundle(for: X.self)` becomes `Bundle(portedFor: X.self)`: the resource bundle SwiftPM
///   makes for X's module, where a test bundle's or framework's resources are on Linux;
///   a predicate's `predicateFormat` becomes `portedPredicateFormat` (Core Data's text);
///   a bundle's `bundleIdentifier` becomes `portedBundleIdentifier`, the bundle's name
///   where Linux's bundles have none.
/// - `override init(entity:insertInto:)` of an `NSManagedObject` subclass becomes
///   `required init(entity:insertInto:)`, and a subclass with initializers of its own
///   gets that one (PortRewriter+Initializers.swift).
/// - Uses of Core Data's names are noted (CoreDataNames.swift), so the file gets `import CoreData`.
/// What cannot be ported (KVO, collection operators, other `#selector`s, other
/// `@NSManaged` functions) becomes a `PortDiagnostic`.
final class PortRewriter: SyntaxRewriter {
    private let path: String
    private let tree: SourceFileSyntax
    private lazy var converter = SourceLocationConverter(fileName: path, tree: tree)
    /// Relationship names of the model's entities, by class name (to spell a to-many
    /// accessor's key as the model does); empty without a model.
    private let relationships: [String: [String]]
    /// The functions the file declares, by base name (read when a selector names one).
    lazy var functions: [String: [FunctionIndex.Function]] = FunctionIndex.functions(in: tree)
    /// The constants it may name: the other ported files' and its own.
    let index: PortIndex
    /// Trivia of removed attributes and modifiers, put before the next token kept.
    private var pendingTrivia: Trivia?
    /// The class or extension being visited (for the model's relationship names).
    private var typeNames: [String] = []

    private(set) var diagnostics: [PortDiagnostic] = []
    private(set) var usesNetworking = false
    /// The rewrite calls CoreData's ported API (observers, the model lookup): the file needs `import CoreData`.
    var usesPortedCoreDataAPI = false
    /// The file names one of Core Data's types or constants (`coreDataNames`): it needs `import CoreData`.
    var usesCoreDataTypes = false
    private(set) var imports: Set<String> = []
    /// Apple-only frameworks whose top-level imports were taken out, in file order.
    private(set) var removedAppleImports: [String] = []
    var changed = false

    init(path: String, tree: SourceFileSyntax, relationships: [String: [String]], index: PortIndex = PortIndex()) {
        self.path = path
        self.tree = tree
        self.relationships = relationships
        self.index = index
        super.init(viewMode: .sourceAccurate)
    }

    // MARK: Trivia of removed nodes

    override func visit(_ token: TokenSyntax) -> TokenSyntax {
        guard let pending = pendingTrivia else { return token }
        pendingTrivia = nil
        return token.with(\.leadingTrivia, Self.merge(pending, token.leadingTrivia))
    }

    /// `pending` then `leading`, without the indentation a removed line would leave
    /// behind as trailing spaces (when `leading` starts a new line).
    static func merge(_ pending: Trivia, _ leading: Trivia) -> Trivia {
        guard leading.pieces.first?.isNewline == true else { return pending + leading }
        var pieces = pending.pieces
        while let last = pieces.last, last.isSpaceOrTab { pieces.removeLast() }
        return Trivia(pieces: pieces) + leading
    }

    /// The trivia a removed node leaves behind: its leading trivia (newlines, comments)
    /// and its trailing comments; the spaces after it go with it.
    private func leftover(of node: some SyntaxProtocol) -> Trivia {
        let trailing = node.trailingTrivia.pieces.drop { $0.isSpaceOrTab }
        return node.leadingTrivia + Trivia(pieces: Array(trailing))
    }

    func carry(_ trivia: Trivia) {
        pendingTrivia = pendingTrivia.map { Self.merge($0, trivia) } ?? trivia
    }

    // MARK: @objc, @objcMembers, @NSManaged; dynamic

    static let removedAttributes: Set<String> = ["objc", "objcMembers", "NSManaged"]

    override func visit(_ node: AttributeListSyntax) -> AttributeListSyntax {
        guard node.contains(where: { Self.isRemoved($0) }) else { return super.visit(node) }
        changed = true
        var kept: [AttributeListSyntax.Element] = []
        for element in node {
            if Self.isRemoved(element) {
                carry(leftover(of: element))
            } else {
                kept.append(visitKept(element))
            }
        }
        return AttributeListSyntax(kept)
    }

    private func visitKept(_ element: AttributeListSyntax.Element) -> AttributeListSyntax.Element {
        var e = element
        if let pending = pendingTrivia {
            pendingTrivia = nil
            e.leadingTrivia = Self.merge(pending, e.leadingTrivia)
        }
        return rewrite(Syntax(e)).cast(AttributeListSyntax.Element.self)
    }

    private static func isRemoved(_ element: AttributeListSyntax.Element) -> Bool {
        guard case .attribute(let a) = element else { return false }
        return removedAttributes.contains(a.attributeName.trimmedDescription)
    }

    override func visit(_ node: DeclModifierListSyntax) -> DeclModifierListSyntax {
        guard node.contains(where: { $0.name.tokenKind == .keyword(.dynamic) }) else { return super.visit(node) }
        changed = true
        var kept: [DeclModifierSyntax] = []
        for modifier in node {
            if modifier.name.tokenKind == .keyword(.dynamic) {
                carry(leftover(of: modifier))
            } else {
                var m = modifier
                if let pending = pendingTrivia {
                    pendingTrivia = nil
                    m.leadingTrivia = Self.merge(pending, m.leadingTrivia)
                }
                kept.append(m)
            }
        }
        return DeclModifierListSyntax(kept)
    }

    // MARK: Types (for the model's relationship names)

    override func visit(_ node: ClassDeclSyntax) -> DeclSyntax {
        typeNames.append(node.name.text)
        defer { typeNames.removeLast() }
        let visited = super.visit(node)
        guard var visitedClass = visited.as(ClassDeclSyntax.self) else { return visited }
        if let typeName = Self.accessorTypeName(ofClass: node, path: typeNames),
            let members = addingKeyValueAccessors(to: visitedClass.memberBlock, original: node.memberBlock, typeName: typeName) {
            visitedClass.memberBlock = members
        }
        return DeclSyntax(portManagedObjectInitializers(visitedClass) ?? visitedClass)
    }

    override func visit(_ node: ExtensionDeclSyntax) -> DeclSyntax {
        typeNames.append(node.extendedType.trimmedDescription)
        defer { typeNames.removeLast() }
        let visited = super.visit(node)
        guard var visitedExtension = visited.as(ExtensionDeclSyntax.self), let typeName = Self.accessorTypeName(ofExtension: node),
            let members = addingKeyValueAccessors(to: visitedExtension.memberBlock, original: node.memberBlock, typeName: typeName)
        else { return visited }
        visitedExtension.memberBlock = members
        return DeclSyntax(visitedExtension)
    }

    // MARK: @NSManaged properties

    override func visit(_ node: VariableDeclSyntax) -> DeclSyntax {
        guard Self.hasNSManaged(node.attributes) else { return super.visit(portSelectorConstants(node)) }
        guard let rewritten = super.visit(node).as(VariableDeclSyntax.self) else { return DeclSyntax(node) }
        var bindings: [PatternBindingSyntax] = []
        for binding in rewritten.bindings {
            guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier, let annotation = binding.typeAnnotation,
                binding.accessorBlock == nil, binding.initializer == nil
            else {
                report(at: binding, "@NSManaged needs a stored property with a type and no value (`@NSManaged var name: String?`); this declaration cannot be ported. Write it that way, or write its accessors with managedValue(forKey:)")
                bindings.append(binding)
                continue
            }
            let key = name.text.trimmingBackticks
            let accessors = Self.parseAccessors(
                "{ get { managedValue(forKey: \(Self.literal(key))) } set { setManagedValue(newValue, forKey: \(Self.literal(key))) } }")
            // The type's trailing trivia (a comment) goes after the accessors.
            var type = annotation.type
            let after = type.trailingTrivia
            type.trailingTrivia = []
            var b = binding.with(\.typeAnnotation, annotation.with(\.type, type))
            b.accessorBlock = accessors.with(\.leadingTrivia, .space).with(\.trailingTrivia, after)
            bindings.append(b)
        }
        return DeclSyntax(rewritten.with(\.bindings, PatternBindingListSyntax(bindings)))
    }

    private static func hasNSManaged(_ attributes: AttributeListSyntax) -> Bool {
        attributes.contains { element in
            if case .attribute(let a) = element { return a.attributeName.trimmedDescription == "NSManaged" }
            return false
        }
    }

    private static func parseAccessors(_ text: String) -> AccessorBlockSyntax {
        let file = Parser.parse(source: "var x: Int \(text)")
        return file.statements.first!.item.as(DeclSyntax.self)!.as(VariableDeclSyntax.self)!.bindings.first!.accessorBlock!
    }

    private static func parseBody(_ text: String) -> CodeBlockSyntax {
        let file = Parser.parse(source: "func f() \(text)")
        return file.statements.first!.item.as(DeclSyntax.self)!.as(FunctionDeclSyntax.self)!.body!
    }

    // MARK: @NSManaged functions (Xcode's to-many accessors)

    override func visit(_ node: FunctionDeclSyntax) -> DeclSyntax {
        guard Self.hasNSManaged(node.attributes) else { return super.visit(node) }
        let selector = Self.objcSelector(node.attributes)
        guard let rewritten = super.visit(node).as(FunctionDeclSyntax.self) else { return DeclSyntax(node) }
        guard rewritten.body == nil, let body = toManyBody(rewritten, selector: selector) else {
            report(
                at: node.name,
                "@NSManaged func \(node.name.text) is not one of Xcode's generated to-many accessors (addToX, removeFromX, insertIntoX, replaceX), so it has no body to give; write its body with mutableSetValue(forKey:)"
            )
            return DeclSyntax(rewritten)
        }
        var signature = rewritten.signature
        let after = signature.trailingTrivia
        signature.trailingTrivia = []
        return DeclSyntax(rewritten.with(\.signature, signature).with(\.body, Self.parseBody(body).with(\.leadingTrivia, .space).with(\.trailingTrivia, after)))
    }

    /// The selector of `@objc(addNotesObject:)`, if the declaration has one.
    private static func objcSelector(_ attributes: AttributeListSyntax) -> String? {
        for element in attributes {
            guard case .attribute(let a) = element, a.attributeName.trimmedDescription == "objc", let arguments = a.arguments else { continue }
            return arguments.trimmedDescription
        }
        return nil
    }

    /// The body of one of Xcode's generated to-many accessors, by its name and parameters.
    private func toManyBody(_ f: FunctionDeclSyntax, selector: String?) -> String? {
        let name = f.name.text
        let params = Array(f.signature.parameterClause.parameters)
        let types = params.map { $0.type.trimmedDescription }
        let labels = params.map { $0.firstName.text }
        let names = params.map { ($0.secondName ?? $0.firstName).text.trimmingBackticks }
        func key(after prefix: String) -> String? {
            guard name.hasPrefix(prefix), name.count > prefix.count else { return nil }
            return relationshipKey(String(name.dropFirst(prefix.count)))
        }
        func set(_ k: String) -> String { "mutableSetValue(forKey: \(Self.literal(k)))" }
        func ordered(_ k: String) -> String { "mutableOrderedSetValue(forKey: \(Self.literal(k)))" }
        let isIndexSet: (String) -> Bool = { $0 == "NSIndexSet" || $0 == "IndexSet" }
        let indexes: (String, String) -> String = { type, value in type == "IndexSet" ? value : "IndexSet(\(value))" }
        switch params.count {
        case 1:
            let v = names[0]
            if let k = key(after: "addTo") {
                switch types[0] {
                case "NSSet": return "{ \(set(k)).addObjects(from: \(v).allObjects) }"
                case "NSOrderedSet": return "{ \(ordered(k)).union(\(v)) }"
                default: return "{ \(set(k)).add(\(v)) }"
                }
            }
            if let k = key(after: "removeFrom") {
                if labels[0] == "at" && types[0] == "Int" { return "{ \(ordered(k)).removeObject(at: \(v)) }" }
                if labels[0] == "at" && isIndexSet(types[0]) { return "{ \(ordered(k)).removeObjects(at: \(indexes(types[0], v))) }" }
                switch types[0] {
                case "NSSet": return "{ let set = \(set(k)); for member in \(v) { set.remove(member) } }"
                case "NSOrderedSet": return "{ \(ordered(k)).minus(\(v)) }"
                default: return "{ \(set(k)).remove(\(v)) }"
                }
            }
        case 2:
            let (v0, v1) = (names[0], names[1])
            if let k = key(after: "insertInto"), labels[1] == "at" {
                if types[1] == "Int" { return "{ \(ordered(k)).insert(\(v0), at: \(v1)) }" }
                if isIndexSet(types[1]) { return "{ \(ordered(k)).insert(\(v0), at: \(indexes(types[1], v1))) }" }
            }
            if let k = key(after: "replace"), labels[0] == "at", labels[1] == "with" {
                if types[0] == "Int" { return "{ \(ordered(k)).replaceObject(at: \(v0), with: \(v1)) }" }
                if isIndexSet(types[0]) { return "{ \(ordered(k)).replaceObjects(at: \(indexes(types[0], v0)), with: \(v1)) }" }
            }
        default:
            break
        }
        _ = selector
        return nil
    }

    /// The relationship key a generated accessor names (`Notes` in `addToNotes`): the
    /// model's relationship of that name, else the name with its first letter lowered,
    /// as Xcode capitalizes it.
    private func relationshipKey(_ capitalized: String) -> String {
        if let type = typeNames.last, let names = relationships[type] {
            if let exact = names.first(where: { $0.capitalizedFirst == capitalized }) { return exact }
        }
        return capitalized.prefix(1).lowercased() + capitalized.dropFirst()
    }

    // MARK: #keyPath, #selector

    override func visit(_ node: MacroExpansionExprSyntax) -> ExprSyntax {
        switch node.macroName.text {
        case "keyPath":
            guard let argument = node.arguments.first?.expression, node.arguments.count == 1 else { return super.visit(node) }
            var components = argument.trimmedDescription.split(separator: ".").map { String($0).trimmingBackticks }
            // `#keyPath(Type.a.b)`: the first component is the type when it is capitalized.
            if components.count > 1, components[0].first?.isUppercase == true { components.removeFirst() }
            changed = true
            let literal = Parser.parse(source: Self.literal(components.joined(separator: "."))).statements.first!.item.as(ExprSyntax.self)!
            return literal.with(\.leadingTrivia, node.leadingTrivia).with(\.trailingTrivia, node.trailingTrivia)
        case "selector":
            report(
                at: node,
                "#selector needs the Objective-C runtime, which Linux does not have; the port makes calls of the selectors of `NotificationCenter.addObserver(_:selector:name:object:)` and `perform(_:)` (also through a `let`), and CoreData's Selector of `NSSortDescriptor(key:ascending:selector:)`'s. Pass a closure instead (the block-based API of the call)"
            )
            return super.visit(node)
        default:
            return super.visit(node)
        }
    }

    // MARK: Calls: observers, KVO, NSClassFromString, collection operators

    /// `bundle.bundleIdentifier`, nil for every bundle on Linux: CoreData's, which gives
    /// the bundle's name then. Only where the base names a bundle (`Bundle.main`,
    /// `Bundle(for: X.self)`, `testBundle`), as other types have members of that name.
    /// `predicate.predicateFormat`, which Foundation on Linux writes as `BLOCKPREDICATE(…)`
    /// or `FALSEPREDICATE` for a compound: CoreData's `portedPredicateFormat` writes it
    /// as Core Data does. (An extension member of the same name would be ambiguous with
    /// Foundation's, so the call is renamed.)
    override func visit(_ node: MemberAccessExprSyntax) -> ExprSyntax {
        guard node.declName.argumentNames == nil, let base = node.base else { return super.visit(node) }
        let replacement: String
        switch node.declName.baseName.text {
        case "bundleIdentifier" where base.trimmedDescription.range(of: "bundle", options: .caseInsensitive) != nil:
            replacement = "portedBundleIdentifier"
        case "predicateFormat":
            replacement = "portedPredicateFormat"
        default:
            return super.visit(node)
        }
        changed = true
        usesPortedCoreDataAPI = true
        let renamed = node.with(\.declName, node.declName.with(\.baseName, .identifier(replacement, leadingTrivia: node.declName.baseName.leadingTrivia, trailingTrivia: node.declName.baseName.trailingTrivia)))
        return super.visit(renamed)
    }

    override func visit(_ node: FunctionCallExprSyntax) -> ExprSyntax {
        let callee = Self.calleeName(node)
        let labels = node.arguments.map { $0.label?.text }
        switch callee {
        case "addObserver" where labels.contains("selector"):
            if let ported = portSelectorObserver(node) { return ported }
        case "perform" where Self.performForms.contains(labels.map { $0 ?? "_" }), "performSelector":
            if let ported = portPerform(node) { return ported }
        case "NSSortDescriptor" where labels == ["key", "ascending", "selector"]:
            if let ported = portSortSelector(node) { return ported }
        case "NSSelectorFromString":
            report(at: node, "NSSelectorFromString needs the Objective-C runtime, which Linux does not have; only `perform(NSSelectorFromString(\"name:\"), with: x)` of a string literal is ported, as a direct call. Call the method itself, or keep a closure")
            return ExprSyntax(node)
        case "addObserver" where labels.contains("forKeyPath"):
            report(at: node, "key-value observing (addObserver(_:forKeyPath:options:context:)) needs the Objective-C runtime, which Linux does not have. Observe the context instead: NSManagedObjectContext.didChangeObjectsNotification (.NSManagedObjectContextObjectsDidChange) names the changed objects")
        case "removeObserver" where labels.contains("forKeyPath"):
            report(at: node, "key-value observing (removeObserver(_:forKeyPath:)) needs the Objective-C runtime, which Linux does not have; remove it with its addObserver(_:forKeyPath:), and observe .NSManagedObjectContextObjectsDidChange instead")
        case "removeObserver" where labels.first == .some(nil) && (labels == [nil] || labels == [nil, "name", "object"]):
            if Self.isNotificationRemoval(node) { return relabelingFirstArgument(of: node, as: "ported", addingColon: true) }
        case "observe" where node.arguments.first?.expression.is(KeyPathExprSyntax.self) == true:
            report(at: node, "key-value observing (observe(\\.key)) needs the Objective-C runtime, which Linux does not have. Observe the context instead: .NSManagedObjectContextObjectsDidChange names the changed objects, or use an NSFetchedResultsController-style fetch after each save")
        case "NSClassFromString" where labels == [nil] && node.calledExpression.is(DeclReferenceExprSyntax.self):
            // Foundation's on Linux finds only its own classes; CoreData's knows the program's.
            usesPortedCoreDataAPI = true
            return relabelingFirstArgument(of: node, as: "ported", addingColon: true)
        case "Bundle" where labels == ["identifier"] && node.calledExpression.is(DeclReferenceExprSyntax.self):
            // A framework's bundle, which Linux does not have: CoreData's gives the program's.
            usesPortedCoreDataAPI = true
            return relabelingFirstArgument(of: node, as: "portedIdentifier")
        case "Bundle" where labels == ["for"] && node.calledExpression.is(DeclReferenceExprSyntax.self):
            // The bundle of the class's module: on Linux, that module's SwiftPM resources.
            usesPortedCoreDataAPI = true
            return relabelingFirstArgument(of: node, as: "portedFor")
        case "url" where labels == ["forResource", "withExtension"], "path" where labels == ["forResource", "ofType"],
            "url" where labels == ["forResource", "withExtension", "subdirectory"]:
            if let ported = portResourceLookup(node) { return ported }
        case "urls" where labels == ["forResourcesWithExtension", "subdirectory"]:
            if isModelExtension(node.arguments.first!.expression) {
                usesPortedCoreDataAPI = true
                return relabelingFirstArgument(of: node, as: "forModelResourcesWithExtension", keepingTrivia: true)
            }
        case "value" where labels == ["forKeyPath"], "mutableArrayValue" where labels == ["forKeyPath"]:
            if let text = node.arguments.first?.expression.as(StringLiteralExprSyntax.self)?.representedLiteralValue, text.contains("@") {
                report(at: node, "the collection operator in \"\(text)\" needs Foundation's key-value coding on Apple platforms; compute it in Swift (`entries.map(\\.rating).reduce(0, +)`, `.count`, `.max()`), or fetch it with an NSExpression-free count or sort")
            }
        default:
            break
        }
        return super.visit(node)
    }

    /// `url(forResource:withExtension:)` or `path(forResource:ofType:)` of the compiled
    /// model, which Linux does not have (CoreData finds the Xcode model), or of another
    /// resource of the app's main bundle (on Linux, SwiftPM's resource bundles); nil for
    /// any other.
    private func portResourceLookup(_ node: FunctionCallExprSyntax) -> ExprSyntax? {
        let label: String
        if isModelExtension(Array(node.arguments)[1].expression) {
            label = "forModelResource"
        } else if let member = node.calledExpression.as(MemberAccessExprSyntax.self), member.base?.trimmedDescription == "Bundle.main" {
            label = "forPortedResource"
        } else {
            return nil
        }
        usesPortedCoreDataAPI = true
        return relabelingFirstArgument(of: node, as: label, keepingTrivia: true)
    }

    /// A compiled model's extension (`"momd"`, `"mom"`, `"omo"`, or a compiled mapping
    /// model's, `"cdm"`) as a literal, or a constant of one (PortIndex).
    private func isModelExtension(_ argument: ExprSyntax) -> Bool {
        let ext = argument.as(StringLiteralExprSyntax.self)?.representedLiteralValue
        return ext.map(["momd", "mom", "omo", "cdm"].contains) == true || index.value(of: argument) == .modelExtension
    }

    /// The call with its first argument's label replaced (a `ported` overload of the same
    /// call), then visited on.
    private func relabelingFirstArgument(
        of node: FunctionCallExprSyntax, as label: String, addingColon: Bool = false, keepingTrivia: Bool = false
    ) -> ExprSyntax {
        changed = true
        var arguments = Array(node.arguments)
        let trivia = keepingTrivia ? arguments[0].label?.leadingTrivia ?? [] : []
        arguments[0] = arguments[0].with(\.label, .identifier(label, leadingTrivia: trivia))
        if addingColon { arguments[0] = arguments[0].with(\.colon, .colonToken(trailingTrivia: .space)) }
        return super.visit(node.with(\.arguments, LabeledExprListSyntax(arguments)))
    }

    /// `removeObserver(x)` of a notification center: the callee's base names one, or x is `self`.
    private static func isNotificationRemoval(_ node: FunctionCallExprSyntax) -> Bool {
        if let member = node.calledExpression.as(MemberAccessExprSyntax.self), let base = member.base {
            let text = base.trimmedDescription
            if text.contains("NotificationCenter") || text.lowercased().contains("notificationcenter") || text == "center" || text.hasSuffix(".center") { return true }
        }
        return node.arguments.first?.expression.trimmedDescription == "self"
    }

    static func calleeName(_ node: FunctionCallExprSyntax) -> String? {
        if let member = node.calledExpression.as(MemberAccessExprSyntax.self) { return member.declName.baseName.text }
        if let ref = node.calledExpression.as(DeclReferenceExprSyntax.self) { return ref.baseName.text }
        return nil
    }

    // MARK: Imports and FoundationNetworking

    static let networkingTypes: Set<String> = ["URLSession", "URLSessionConfiguration", "URLSessionTask", "URLSessionDataTask", "URLRequest", "HTTPURLResponse", "URLResponse"]

    override func visit(_ node: ImportDeclSyntax) -> DeclSyntax {
        imports.insert(node.path.trimmedDescription)
        return super.visit(node)
    }

    /// Frameworks Linux does not have that Xcode's templates import anyway, and what each
    /// brings with it that Linux has: a file that used only that still builds.
    static let appleOnlyImports: [String: String] = ["UIKit": "Foundation", "AppKit": "Foundation", "Cocoa": "CoreData"]

    override func visit(_ node: CodeBlockItemListSyntax) -> CodeBlockItemListSyntax {
        // Only the file's own imports: one inside `#if` is already guarded.
        guard node.parent?.is(SourceFileSyntax.self) == true,
            node.contains(where: { Self.appleOnlyImport($0) != nil })
        else {
            // A function's statements: a local `let sel = #selector(m)` is read once (PortRewriter+Selectors.swift).
            if Self.isInBody(node), let read = readingLocalSelectorConstants(node) { return read }
            return super.visit(node)
        }
        changed = true
        var kept: [CodeBlockItemSyntax] = []
        for item in node {
            if let framework = Self.appleOnlyImport(item) {
                if !removedAppleImports.contains(framework) { removedAppleImports.append(framework) }
                carry(leftover(of: item))
            } else {
                kept.append(rewrite(Syntax(item)).cast(CodeBlockItemSyntax.self))
            }
        }
        return CodeBlockItemListSyntax(kept)
    }

    /// The framework `item` imports whole, when it is one Linux does not have.
    private static func appleOnlyImport(_ item: CodeBlockItemSyntax) -> String? {
        guard let decl = item.item.as(ImportDeclSyntax.self), decl.importKindSpecifier == nil, decl.attributes.isEmpty,
            decl.path.count == 1, let name = decl.path.first?.name.text, appleOnlyImports[name] != nil
        else { return nil }
        return name
    }

    override func visit(_ node: DeclReferenceExprSyntax) -> ExprSyntax {
        if Self.networkingTypes.contains(node.baseName.text) { usesNetworking = true }
        if Self.coreDataNames.contains(node.baseName.text) { usesCoreDataTypes = true }
        return super.visit(node)
    }

    override func visit(_ node: IdentifierTypeSyntax) -> TypeSyntax {
        if Self.networkingTypes.contains(node.name.text) { usesNetworking = true }
        if Self.coreDataNames.contains(node.name.text) { usesCoreDataTypes = true }
        return super.visit(node)
    }

    // MARK: Casts between fetch requests (PortRewriter+Casts.swift)

    override func visit(_ node: IsTypePatternSyntax) -> PatternSyntax {
        if Self.isFetchRequestType(node.type) { report(at: node, Self.patternCastMessage) }
        return super.visit(node)
    }

    override func visit(_ node: SequenceExprSyntax) -> ExprSyntax {
        if let call = discardedPerform(node) { return call }
        let visited = super.visit(node)
        guard let sequence = visited.as(SequenceExprSyntax.self), let ported = portFetchRequestCasts(sequence, original: node) else { return visited }
        return ExprSyntax(ported)
    }

    // MARK: Diagnostics

    func report(at node: some SyntaxProtocol, _ message: String) {
        let location = node.startLocation(converter: converter)
        diagnostics.append(PortDiagnostic(path: path, line: location.line, column: location.column, message: message))
    }

    static func literal(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

extension String {
    var trimmingBackticks: String {
        hasPrefix("`") && hasSuffix("`") && count >= 2 ? String(dropFirst().dropLast()) : self
    }
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}

extension TriviaPiece {
    var isSpaceOrTab: Bool {
        switch self {
        case .spaces, .tabs: true
        default: false
        }
    }
}
