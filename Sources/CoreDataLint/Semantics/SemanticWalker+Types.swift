import SwiftSyntax

/// The types being read: their members' values, innermost last.
extension SemanticWalker {

    func enterType(_ name: String, _ members: MemberBlockSyntax) {
        typeNames.append(name)
        var table: [String: Value] = [:]
        var names: Set<String> = []
        for item in members.members {
            guard let variable = item.decl.as(VariableDeclSyntax.self) else { continue }
            for binding in variable.bindings {
                guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { continue }
                names.insert(name)
                if let row = index.apiTable.objectWrapper(of: variable) {
                    // `@FetchRequest var notes: FetchedResults<Note>`: the table says whose objects.
                    let wrapper = "@" + row.name.drop { $0 == "@" }
                    let owner = ContextRef.property(
                        row.queue == .main ? "viewContext" : wrapper, queue: row.queue,
                        citation: "`\(wrapper)` (\(row.source)) gives objects of \(row.queue.article) context")
                    table[name] = .managedObject(ManagedObjectInfo(owner: row.queue == .unknown ? nil : owner, isCollection: true))
                } else if variable.bindingSpecifier.tokenKind == .keyword(.let), let value = binding.initializer?.value, let queue = resolveOwnQueue(value) {
                    table[name] = queue
                } else if let type = binding.typeAnnotation?.type {
                    if let value = declaredValue(type, key: name, name: name, origin: .property) {
                        table[name] = value
                    } else if TypeNames.base(of: type) == "NSFetchedResultsController", let initial = binding.initializer?.value,
                        let controller = fetchedResultsController(initializedBy: initial)
                    {
                        table[name] = controller
                    }
                } else if let fact = index.contextProperty(name, in: typeNames.last), mayHoldContext(binding.initializer?.value) {
                    table[name] = .context(ContextRef.indexed(name, fact, currentFile: fileName))
                }
            }
        }
        typeMembers.append(table)
        typeMemberNames.append(names)
        pushScope()
        refineMemberObjects(members)
    }

    /// `DispatchQueue(label: "import")`, `OperationQueue()`, `URLSession(configuration: …)`:
    /// the whole initializer of a property.
    func resolveOwnQueue(_ value: ExprSyntax) -> Value? {
        guard let call = value.as(FunctionCallExprSyntax.self),
            let type = call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text,
            type == "DispatchQueue" || type == "OperationQueue" || type == "URLSession"
        else { return nil }
        return resolve(call)
    }

    /// Whether a property with no declared type, set up with `value`, may hold a
    /// context: `newBackgroundContext()`, `viewContext`, another context property or
    /// function; not `RenderContext()`.
    func mayHoldContext(_ value: ExprSyntax?) -> Bool {
        guard let value else { return true }
        switch FactCollector.evidence(of: Syntax(value)) {
        case .queue: return true
        case .name(let other): return index.contextProperty(named: other) != nil || index.contextFunction(named: other) != nil
        case .unknown: return false
        }
    }

    /// `lazy var note: Note? = { Note(context: managedObjectContext) }()`: a member
    /// object whose initializer tells its context.
    func refineMemberObjects(_ members: MemberBlockSyntax) {
        for item in members.members {
            guard let variable = item.decl.as(VariableDeclSyntax.self) else { continue }
            for binding in variable.bindings {
                guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
                    case .managedObject(let declared)? = typeMembers[typeMembers.count - 1][name], declared.owner == nil,
                    let value = binding.initializer?.value, let made = Self.singleExpression(value),
                    case .managedObject(var object)? = resolve(made), object.owner != nil
                else { continue }
                object.isCollection = declared.isCollection
                object.isInsertedHere = false
                typeMembers[typeMembers.count - 1][name] = .managedObject(object)
            }
        }
    }

    /// The expression `{ expression }()` or `{ return expression }()` computes, or the
    /// expression itself.
    static func singleExpression(_ value: ExprSyntax) -> ExprSyntax? {
        guard let call = value.as(FunctionCallExprSyntax.self), let closure = call.calledExpression.as(ClosureExprSyntax.self) else { return value }
        guard closure.statements.count == 1, let item = closure.statements.first?.item else { return nil }
        return item.as(ReturnStmtSyntax.self)?.expression ?? item.as(ExprSyntax.self)
    }

    func leaveType() {
        typeMembers.removeLast()
        typeMemberNames.removeLast()
        typeNames.removeLast()
        popScope()
    }
}
