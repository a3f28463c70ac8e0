/// The project-wide half of the analysis: every function's summary (what it returns,
/// as a value of its parameters' values) and every property's value (the join of its
/// setup and of every store into it anywhere, a stored parameter taking what each
/// caller hands), to a fixpoint over the call graph, in the manner of Infer's RacerD:
/// each function is summarized once, from its callees' summaries, and a call reads the
/// callee's summary with its own arguments put in for the parameters.
///
/// Names are resolved as the index they serve resolves them: the solver reads the
/// facts of one target (`TargetViews`), so a name another target also declares is
/// not seen here. Within them, a call or property whose name several declarations bear
/// is the join of them all: `unknown` when they disagree, never one of them.
struct DataflowSolver {
    private var functions: [FunctionInput] = []
    private var functionsByName: [String: [Int]] = [:]
    private var properties: [String: [PropertyInput]] = [:]
    private var stores: [String: [(StoreInput, function: FunctionInput?)]] = [:]
    private var calls: [String: [CallInput]] = [:]
    private let isManagedObjectClass: (String) -> Bool
    private var ambiguous: Set<String> = []
    private(set) var results: [AbstractValue?] = []
    private(set) var propertyValues: [String: AbstractValue] = [:]
    /// Rounds the fixpoint took (for tests).
    private(set) var rounds = 0

    static let maximumRounds = 12

    init(files: [DataflowFacts], isManagedObjectClass: @escaping (String) -> Bool) {
        self.isManagedObjectClass = isManagedObjectClass
        for file in files {
            let offset = functions.count
            for (index, function) in file.functions.enumerated() { functionsByName[function.name, default: []].append(offset + index) }
            functions.append(contentsOf: file.functions)
            for property in file.properties { properties[property.name, default: []].append(property) }
            for store in file.stores { stores[store.property, default: []].append((store, store.function.map { file.functions[$0] })) }
            for call in file.calls { calls[call.name, default: []].append(call) }
            ambiguous.formUnion(file.ambiguousNames)
        }
        results = Array(repeating: nil, count: functions.count)
        solve()
    }

    /// Rounds of evaluation from the bottom (nothing known) until no summary and no
    /// property value changes; values only rise (a join of more facts), so it ends.
    private mutating func solve() {
        let names = Set(properties.keys).union(stores.keys)
        while rounds < Self.maximumRounds {
            rounds += 1
            var changed = false
            for index in functions.indices {
                guard let term = functions[index].result else { continue }
                let value = evaluate(term, nil)
                if value != results[index] { results[index] = value; changed = true }
            }
            for name in names {
                let value = ambiguous.contains(name) ? AbstractValue(kind: .mixed, owner: .unknown) : computePropertyValue(name)
                if value != propertyValues[name] { propertyValues[name] = value; changed = true }
            }
            if !changed { return }
        }
        // Not settled: whatever still moves is unknown.
        for index in functions.indices where functions[index].result != nil {
            if evaluate(functions[index].result!, nil) != results[index] { results[index] = AbstractValue(kind: .mixed, owner: .unknown) }
        }
    }

    // MARK: Questions

    /// The value of the property `name`, of whichever instance.
    func property(_ name: String) -> AbstractValue? { propertyValues[name] }

    /// What a call of the function `name` returns, with its parameters' owners left as
    /// `.parameter(label)`: the join over its declarations.
    func result(of name: String) -> AbstractValue? {
        if ambiguous.contains(name) { return AbstractValue(kind: .mixed, owner: .unknown) }
        var joined: AbstractValue?
        for index in functionsByName[name] ?? [] { joined = joined.joined(with: results[index] ?? nil) }
        return joined
    }

    /// The declarations of `name`, with their summaries.
    func declarations(of name: String) -> [(FunctionInput, AbstractValue?)] {
        (functionsByName[name] ?? []).map { (functions[$0], results[$0]) }
    }

    func properties(named name: String) -> [PropertyInput] { properties[name] ?? [] }
    func stores(into name: String) -> [(StoreInput, function: FunctionInput?)] { stores[name] ?? [] }
    func calls(named name: String) -> [CallInput] { calls[name] ?? [] }
    func isManagedObjectClassName(_ name: String) -> Bool { isManagedObjectClass(name) }
    func isAmbiguous(_ name: String) -> Bool { ambiguous.contains(name) }

    var functionNames: Dictionary<String, [Int]>.Keys { functionsByName.keys }
    var propertyNames: Dictionary<String, AbstractValue>.Keys { propertyValues.keys }

    // MARK: Evaluation

    /// A term's value; `arguments` puts the caller's values in for the parameters (nil:
    /// the summary, with each parameter's owner `.parameter(label)`).
    func evaluate(_ term: ValueTerm, _ arguments: [String: AbstractValue?]?) -> AbstractValue? {
        switch term {
        case .value(let value): return value
        case .unknown: return AbstractValue(kind: .mixed, owner: .unknown)
        case .parameter(let label):
            guard let arguments else { return AbstractValue(kind: .mixed, owner: Owner(queue: .unknown, identity: .parameter(label))) }
            return arguments[label] ?? nil
        case .property(let name): return ambiguous.contains(name) ? AbstractValue(kind: .mixed, owner: .unknown) : propertyValues[name]
        case .join(let a, let b): return evaluate(a, arguments).joined(with: evaluate(b, arguments))
        case .element(let base): return evaluate(base, arguments)?.element
        case .madeContext(let site, let queue): return Self.madeContext(site, queue: evaluate(queue, arguments))
        case .objects(let base, let collection):
            guard let context = evaluate(base, arguments), context.kind == .context || context.kind == .mixed else { return nil }
            return .objects(of: context.owner, collection: collection)
        case .member(let base, let name): return member(evaluate(base, arguments), name)
        case .call(let name, let receiver, let list):
            let receiverValue = receiver.flatMap { evaluate($0, arguments) }
            var values: [String: AbstractValue?] = [:]
            for argument in list { values[argument.label] = .some(evaluate(argument.term, arguments)) }
            return call(name, receiver: receiverValue, hasReceiver: receiver != nil, arguments: values, labels: list.map(\.label))
        }
    }

    /// A context made at `site` with the concurrency type `type`: of its queue when the
    /// type is known; in a summary, of whatever queue the caller's argument names.
    static func madeContext(_ site: String, queue type: AbstractValue?) -> AbstractValue {
        guard let type else { return .context(.unknown) }
        if case .parameter(let label) = type.owner.identity {
            return .context(Owner(queue: .unknown, identity: .madeWith(site: site, queueOf: label), makesNew: true))
        }
        guard type.kind == .concurrencyType, type.owner.isKnown else { return .context(.unknown) }
        return .context(.made(site, queue: type.owner.queue))
    }

    /// `object.relationship` holds objects of the object's context when the project
    /// declares it of a managed object type; `object.managedObjectContext` is that
    /// context; any other member by its name.
    private func member(_ base: AbstractValue?, _ name: String) -> AbstractValue? {
        guard let base else { return propertyValues[name] }
        switch base.kind {
        case .object, .objects:
            if name == "managedObjectContext" { return .context(base.owner) }
            let declared = (properties[name] ?? []).filter { $0.declaredType.map(isManagedObjectClass) == true }
            guard let first = declared.first, declared.allSatisfy({ $0.declaredCollection == first.declaredCollection }) else { return nil }
            return .objects(of: base.owner, collection: first.declaredCollection)
        case .context:
            if name == "parent" { return .context(.unknown) }
            if CoreDataAPI.contextStateProperties.contains(name) { return nil }
            return propertyValues[name]
        case .mixed:
            return propertyValues[name]
        case .concurrencyType:
            return nil
        }
    }
}
