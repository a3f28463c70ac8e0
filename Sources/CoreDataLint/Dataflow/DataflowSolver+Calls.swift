extension DataflowSolver {
    /// A call's value: `Entity(context:)`'s new object, or the join of the summaries of
    /// the declarations the call can reach (by name and argument labels), each with the
    /// call's arguments put in for its parameters. A name the project does not declare
    /// (a library's call) holds nothing the analysis follows.
    func call(_ name: String, receiver: AbstractValue?, hasReceiver: Bool, arguments: [String: AbstractValue?], labels: [String]) -> AbstractValue? {
        if isAmbiguous(name) { return AbstractValue(kind: .mixed, owner: .unknown) }
        if name.first?.isUppercase == true, isEntity(name) {
            let context = arguments["context"] ?? arguments["insertInto"] ?? arguments["into"] ?? nil
            return .objects(of: context?.owner ?? .unknown, collection: false)
        }
        var joined: AbstractValue?, any = false
        let declared = declarations(of: name)
        let swift2 = Self.readsAsSwift2(labels, declared.map(\.0))
        for (function, summary) in declared {
            guard let mapping = Self.match(labels, to: function, swift2: swift2) else { continue }
            any = true
            guard let summary else { continue }
            var values: [String: AbstractValue?] = [:]
            for (callLabel, parameterLabel) in mapping { values[parameterLabel] = arguments[callLabel] ?? nil }
            if function.type == CoreDataAPI.contextType { values["self"] = .some(receiver) }
            joined = joined.joined(with: Self.substitute(summary, values))
        }
        return any ? joined : nil
    }

    private func isEntity(_ name: String) -> Bool { name == CoreDataAPI.managedObjectType || isManagedObjectClassName(name) }

    /// Which parameter each of a call's labels fills: the labels in order, each
    /// parameter left out having a default value; a trailing closure fills the last
    /// parameter left. Nil when the call cannot reach the function.
    static func match(_ labels: [String], to function: FunctionInput, swift2: Bool = false) -> [(String, String)]? {
        var mapping: [(String, String)] = [], next = 0
        // Swift 2 left out a method's first argument label (`createContext(.PrivateQueueConcurrencyType,
        // name:)` for `func createContext(concurrencyType:name:)`; SE-0046 made it a label).
        if swift2, labels.first == "_", let first = function.labels.first, first != "_" {
            mapping.append(("_", first))
            next = 1
        }
        for label in labels.dropFirst(mapping.count) where label != "trailing" {
            while next < function.labels.count, function.labels[next] != label {
                guard function.defaulted.contains(function.labels[next]) else { return nil }
                next += 1
            }
            guard next < function.labels.count else { return nil }
            mapping.append((label, function.labels[next]))
            next += 1
        }
        if labels.contains("trailing") {
            guard next < function.labels.count else { return nil }
            mapping.append(("trailing", function.labels[function.labels.count - 1]))
            next = function.labels.count
        }
        guard function.labels[next...].allSatisfy(function.defaulted.contains) else { return nil }
        return mapping
    }

    /// Whether a call reads as Swift 2's, its first argument unlabelled for a labelled first
    /// parameter: only when it reaches none of the declarations as Swift 3 reads it, and
    /// one of them with a labelled first parameter. Swift 3 and later would not compile
    /// such a call of that function, so only Swift 2 code makes it.
    static func readsAsSwift2(_ labels: [String], _ functions: [FunctionInput]) -> Bool {
        guard labels.first == "_", !functions.isEmpty else { return false }
        return !functions.contains { match(labels, to: $0) != nil }
    }

    /// A summary with the caller's values put in for `.parameter(label)` owners: a
    /// parameter handed straight back is the argument itself; objects of a parameter
    /// are objects of the argument's context.
    static func substitute(_ summary: AbstractValue, _ values: [String: AbstractValue?]) -> AbstractValue? {
        if case .madeWith(let site, let label) = summary.owner.identity { return madeContext(site, queue: values[label] ?? nil) }
        guard case .parameter(let label) = summary.owner.identity else { return summary }
        let argument = values[label] ?? nil
        if summary.kind == .mixed { return argument }
        guard let argument else { return AbstractValue(kind: summary.kind, owner: .unknown) }
        return AbstractValue(kind: summary.kind, owner: argument.owner)
    }

    // MARK: Properties

    /// The join of a property's setups and of every store into it; a stored parameter
    /// (`init(context:) { self.context = context }`) takes what each call of its function
    /// hands, `unknown` when nothing in the project calls it.
    func computePropertyValue(_ name: String) -> AbstractValue? {
        var joined: AbstractValue?
        let declared = properties(named: name)
        // Two declarations, one set from outside (or holding no context): which one a
        // store or a use reaches cannot be told.
        if declared.count > 1, declared.contains(where: { $0.term == nil }) { return AbstractValue(kind: .mixed, owner: .unknown) }
        for property in declared {
            guard let term = property.term else {
                if let type = property.declaredType, !type.contains("Context"), !isManagedObjectClassName(type) { joined = joined.joined(with: AbstractValue(kind: .mixed, owner: .unknown)) }
                continue
            }
            guard var value = evaluate(term, nil) else {
                joined = joined.joined(with: AbstractValue(kind: .mixed, owner: .unknown))
                continue
            }
            if property.kind != .computed { value = Self.held(value, by: name) }
            joined = joined.joined(with: Self.withoutParameters(value))
        }
        for (store, function) in stores(into: name) {
            guard store.term.mentionsParameter, let function else {
                let value = evaluate(store.term, nil).map { Self.held(Self.withoutParameters($0), by: name) }
                joined = joined.joined(with: value)
                continue
            }
            joined = joined.joined(with: storedArgument(store.term, of: function).map { Self.held($0, by: name) })
        }
        return joined
    }

    /// The join, over every call of `function`, of `term` with that call's arguments.
    private func storedArgument(_ term: ValueTerm, of function: FunctionInput) -> AbstractValue? {
        var joined: AbstractValue?, any = false
        for call in calls(named: function.name) {
            // A call whose arguments hold nothing followed may be this function's: what it
            // stores is unknown.
            if call.isOpaque { return AbstractValue(kind: .mixed, owner: .unknown) }
            let labels = call.arguments.map(\.label)
            guard let mapping = Self.match(labels, to: function, swift2: Self.readsAsSwift2(labels, declarations(of: function.name).map(\.0))) else { continue }
            any = true
            var values: [String: AbstractValue?] = [:]
            for (callLabel, parameterLabel) in mapping {
                let argument = call.arguments.first { $0.label == callLabel }
                values[parameterLabel] = .some(argument.flatMap { evaluate($0.term, nil) }.map(Self.withoutParameters))
            }
            var value = evaluate(term, values)
            value?.owner.makesNew = false
            joined = joined.joined(with: value)
        }
        return any ? joined : AbstractValue(kind: .mixed, owner: .unknown)
    }

    /// A context made once and kept in a stored property is that property's context:
    /// every read gets the same one.
    static func held(_ value: AbstractValue, by property: String) -> AbstractValue {
        var value = value
        value.owner.makesNew = false
        if value.kind == .context, case .made = value.owner.identity { value.owner.identity = .property(property) }
        return value
    }

    /// A value whose owner is a parameter of the function it came from, outside that
    /// function: unknown.
    static func withoutParameters(_ value: AbstractValue) -> AbstractValue {
        if case .madeWith = value.owner.identity { return AbstractValue(kind: value.kind, owner: .unknown) }
        guard case .parameter = value.owner.identity else { return value }
        return AbstractValue(kind: value.kind, owner: .unknown)
    }
}
