import SwiftSyntax

/// Resolves the queue of every context property and function from the declarations,
/// the assignments made anywhere, and the initializer arguments stored into them.
struct ContextResolver {
    private var declarations: [String: [ContextDeclaration]] = [:]
    private var assignments: [String: [ContextAssignment]] = [:]
    /// Init arguments by the property their parameter is stored into, with the type
    /// whose initializer stores it.
    private var storedArguments: [String: [(type: String, argument: InitArgument)]] = [:]
    private var resolved: [String: ContextFact] = [:]
    private var resolving: Set<String> = []
    private var otherContextNamedProperties: Set<String> = []

    init(files: [FileFacts]) {
        var stores: [String: [InitParameterStore]] = [:]
        for file in files {
            otherContextNamedProperties.formUnion(file.otherContextNamedProperties)
            for declaration in file.contextDeclarations { declarations[declaration.name, default: []].append(declaration) }
            for store in file.initStores { stores["\(store.type)(\(store.label):)", default: []].append(store) }
        }
        for file in files {
            for assignment in file.contextAssignments where declarations[assignment.property] != nil {
                assignments[assignment.property, default: []].append(assignment)
            }
            for argument in file.initArguments {
                for store in stores["\(argument.type)(\(argument.label):)"] ?? [] {
                    storedArguments[store.property, default: []].append((store.type, argument))
                }
            }
        }
    }

    var propertyNames: [String] { declarations.filter { $0.value.contains { $0.kind != .function } }.map(\.key) }
    var functionNames: [String] { declarations.filter { $0.value.contains { $0.kind == .function } }.map(\.key) }

    /// The queue of a name, and where it is told; `.unknown` when the sources disagree
    /// or do not tell.
    mutating func fact(_ name: String) -> ContextFact {
        if let done = resolved[name] { return done }
        guard declarations[name] != nil, resolving.insert(name).inserted else { return ContextFact(queue: .unknown, files: []) }
        defer { resolving.remove(name) }
        var candidates: [ContextFact] = []
        let implementations = (declarations[name] ?? []).filter { !$0.isRequirement }
        if implementations.count > 1 && implementations.contains(where: { $0.evidence == nil }) || otherContextNamedProperties.contains(name) {
            // Two types declare the name, and one is set from outside (or holds no
            // context at all): the assignments cannot be told apart, nor can which
            // type a use reaches.
            candidates.append(ContextFact(queue: .unknown, files: []))
        }
        for declaration in declarations[name] ?? [] {
            guard let evidence = declaration.evidence else { continue }
            let verb = declaration.kind == .storedProperty ? "holds" : "returns"
            candidates.append(told(evidence, subject: "`\(name)` (\(declaration.place.described)) \(verb)", file: declaration.place.file))
        }
        for assignment in assignments[name] ?? [] {
            candidates.append(told(assignment.evidence, subject: "`\(name)` is set to `\(assignment.valueText)` (\(assignment.place.described)), which is", file: assignment.place.file))
        }
        for (_, argument) in storedArguments[name] ?? [] {
            candidates.append(told(argument.evidence, subject: "`\(name)` is set from `\(argument.valueText)` (\(argument.place.described)), which is", file: argument.place.file))
        }
        var fact: ContextFact
        if let first = candidates.first, first.queue != .unknown, candidates.allSatisfy({ $0.queue == first.queue }) {
            fact = first
        } else {
            fact = ContextFact(queue: .unknown, files: [])
        }
        fact.makesNew = declarations[name]?.allSatisfy { $0.kind != .storedProperty && $0.makesNew } ?? false
        resolved[name] = fact
        return fact
    }

    /// The protocols that require each context property, and the property names.
    var requirementKeys: [(String, String)] {
        var keys: Set<[String]> = []
        for (name, list) in declarations {
            for declaration in list where declaration.isRequirement { if let type = declaration.type { keys.insert([type, name]) } }
        }
        return keys.map { ($0[0], $0[1]) }
    }

    /// The types that declare each context property (protocol requirements aside), and
    /// the property names: the keys of `typedFact`.
    var typedPropertyKeys: [(String, String)] {
        var keys: [(String, String)] = []
        for (name, list) in declarations {
            for type in Set(list.compactMap { $0.kind != .function && !$0.isRequirement ? $0.type : nil }) { keys.append((type, name)) }
        }
        return keys
    }

    /// The queue of `type`'s property `name`, from what is told of that type's property
    /// alone: its declaration, assignments to it through `self` or a value of that type,
    /// and its initializer's stored arguments. An assignment whose receiver's type is
    /// unknown may be to any type's property of that name: it must agree, and when
    /// several types declare the name it cannot tell the queue alone. Nil when the
    /// type does not declare the name.
    mutating func typedFact(_ type: String, _ name: String) -> ContextFact? {
        let all = declarations[name] ?? []
        let own = all.filter { $0.type == type && $0.kind != .function && !$0.isRequirement }
        guard !own.isEmpty else { return nil }
        let declaringTypes = Set(all.compactMap { $0.isRequirement ? nil : $0.type })
        var specific: [ContextFact] = [], ambiguous: [ContextFact] = []
        for declaration in own {
            guard let evidence = declaration.evidence else { continue }
            let verb = declaration.kind == .storedProperty ? "holds" : "returns"
            specific.append(told(evidence, subject: "`\(name)` (\(declaration.place.described)) \(verb)", file: declaration.place.file))
        }
        for assignment in assignments[name] ?? [] {
            if let receiver = assignment.receiverType, receiver != type, declaringTypes.contains(receiver) { continue }
            let fact = told(assignment.evidence, subject: "`\(name)` is set to `\(assignment.valueText)` (\(assignment.place.described)), which is", file: assignment.place.file)
            if assignment.receiverType == type { specific.append(fact) } else { ambiguous.append(fact) }
        }
        for (storeType, argument) in storedArguments[name] ?? [] where storeType == type {
            specific.append(told(argument.evidence, subject: "`\(name)` is set from `\(argument.valueText)` (\(argument.place.described)), which is", file: argument.place.file))
        }
        if specific.isEmpty && declaringTypes.count > 1 { return ContextFact(queue: .unknown, files: []) }
        let candidates = specific + ambiguous
        guard let first = candidates.first, first.queue != .unknown, candidates.allSatisfy({ $0.queue == first.queue }) else {
            return ContextFact(queue: .unknown, files: [])
        }
        return first
    }

    private mutating func told(_ evidence: QueueEvidence, subject: String, file: String) -> ContextFact {
        switch evidence {
        case .queue(let queue):
            return ContextFact(queue: queue, citation: "\(subject) \(queue.article) context", files: [file])
        case .name(let other):
            let inner = fact(other)
            guard inner.queue != .unknown, let citation = inner.citation else { return ContextFact(queue: .unknown, files: []) }
            return ContextFact(queue: inner.queue, citation: "\(subject) \(inner.queue.article) context; \(citation)", files: inner.files.union([file]))
        case .unknown:
            return ContextFact(queue: .unknown, files: [])
        }
    }
}
