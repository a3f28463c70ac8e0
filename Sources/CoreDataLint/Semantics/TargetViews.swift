/// What each target of a project sees of the project's facts, the way the compiler
/// resolves names: a target's files see their own declarations first, so another
/// target's declarations of the same names (and that target's own uses of them, which
/// reach its own) are hidden from it; a name it does not declare and two other targets
/// do is ambiguous, and its fact unknown, never one of them guessed.
struct TargetViews {
    /// One index's files: the facts it is built from, and the files linted against it.
    struct View {
        var facts: [FileFacts]
        var files: [Int]
    }

    let views: [View]

    /// `targets`: each file's target name (`ProjectTargets`), in the order of `files`.
    init(files: [FileFacts], targets: [String]) {
        var byTarget: [String: [Int]] = [:]
        for (offset, target) in targets.enumerated() { byTarget[target, default: []].append(offset) }
        guard byTarget.count > 1 else {
            views = [View(facts: files, files: Array(files.indices))]
            return
        }
        let declared = byTarget.mapValues { members in members.reduce(into: Set<String>()) { $0.formUnion(Self.declaredNames(files[$1])) } }
        var count: [String: Int] = [:]
        for names in declared.values { for name in names { count[name, default: 0] += 1 } }
        let clashing = Set(count.filter { $0.value > 1 }.keys)
        var views: [View] = []
        var shared: [Int] = []
        for (target, members) in byTarget.sorted(by: { $0.key < $1.key }) {
            let own = declared[target, default: []].intersection(clashing)
            guard !own.isEmpty else {
                shared += members
                continue
            }
            views.append(View(facts: Self.facts(seenBy: target, own: own, files, byTarget, declared, clashing), files: members))
        }
        if !shared.isEmpty {
            // Targets that declare none of the clashing names see every file's facts, the
            // clashing names unknown.
            views.append(View(facts: files + [Self.ambiguous(clashing, files)], files: shared.sorted()))
        }
        self.views = views
    }

    /// The project's facts as `target` sees them.
    private static func facts(
        seenBy target: String, own: Set<String>, _ files: [FileFacts], _ byTarget: [String: [Int]], _ declared: [String: Set<String>],
        _ clashing: Set<String>
    ) -> [FileFacts] {
        var seen: [FileFacts] = []
        for (other, members) in byTarget {
            let hidden = other == target ? [] : own.intersection(declared[other, default: []])
            for member in members { seen.append(hidden.isEmpty ? files[member] : files[member].hiding(hidden)) }
        }
        seen.append(ambiguous(clashing.subtracting(own), files))
        return seen
    }

    /// A fact of no file that makes each name's context unknown.
    private static func ambiguous(_ names: Set<String>, _ files: [FileFacts]) -> FileFacts {
        var facts = FileFacts()
        let contexts = files.reduce(into: Set<String>()) { found, file in found.formUnion(file.contextDeclarations.map(\.name)) }
        facts.otherContextNamedProperties = names.intersection(contexts)
        facts.dataflow.ambiguousNames = names
        return facts
    }

    /// The names a file declares that another target's code could mean: its functions,
    /// context properties and functions, and properties named like a context.
    static func declaredNames(_ file: FileFacts) -> Set<String> {
        var names = Set(file.functions.map(\.name))
        names.formUnion(file.contextDeclarations.map(\.name))
        names.formUnion(file.otherContextNamedProperties)
        names.formUnion(file.requestFactories.map(\.0))
        return names
    }
}

extension FileFacts {
    /// These facts without what they tell of `names`: the file's own declarations of
    /// them, and its uses of them (which reach its own declarations), for another
    /// target that declares the same names.
    func hiding(_ names: Set<String>) -> FileFacts {
        var facts = self
        facts.contextDeclarations.removeAll { names.contains($0.name) }
        facts.otherContextNamedProperties.subtract(names)
        facts.contextNameReads = contextNameReads.filter { !names.contains($0.key) }
        facts.contextAssignments = contextAssignments.filter { !names.contains($0.property) }.map { assignment in
            var assignment = assignment
            assignment.evidence = assignment.evidence.hiding(names)
            return assignment
        }
        facts.initStores.removeAll { names.contains($0.property) }
        facts.initArguments = initArguments.map { argument in
            var argument = argument
            argument.evidence = argument.evidence.hiding(names)
            return argument
        }
        // A call names its calling function by its place among the file's functions.
        var places: [Int32] = []
        var kept: [FunctionFact] = []
        for function in functions {
            places.append(names.contains(function.name) ? -1 : Int32(kept.count))
            if !names.contains(function.name) { kept.append(function) }
        }
        facts.functions = kept
        facts.requestFactories.removeAll { names.contains($0.0) }
        facts.contextParameterUses.removeAll { names.contains($0.function) }
        facts.objectReturns.removeAll { names.contains($0.function) }
        facts.propertyObjectReturns.removeAll { names.contains($0.function) || names.contains($0.context) }
        facts.contextExtensionUses.removeAll { names.contains($0.member) }
        facts.closureParameterQueues.removeAll { names.contains($0.function) }
        facts.escapingNames.subtract(names)
        facts.dataflow = dataflow.hiding(names)
        facts.didSaveSelectors.subtract(names)
        facts.calls = calls.compactMap { call in
            guard var call = call.hiding(names) else { return nil }
            if call.callerFunction >= 0 { call.callerFunction = places.indices.contains(Int(call.callerFunction)) ? places[Int(call.callerFunction)] : -1 }
            return call
        }
        return facts
    }
}

extension QueueEvidence {
    /// Unknown when it names one of `names`, which another target's index must not read
    /// as its own.
    func hiding(_ names: Set<String>) -> QueueEvidence {
        if case .name(let name) = self, names.contains(name) { return .unknown }
        return self
    }
}

extension CallFact {
    /// The call, for another target that declares `names`: none when it calls one of
    /// them (its own); made from a function named so, it is made from code that target
    /// cannot place; inside the `perform` of a context named so, where it runs is
    /// unknown, and so is the context of the objects it hands from one.
    func hiding(_ names: Set<String>) -> CallFact? {
        guard !names.contains(callee) else { return nil }
        var call = self
        let handed = objectArguments.mapValues { $0.hiding(names) }
        if handed != objectArguments {
            // Objects fetched from a context named so are that target's context's.
            call = CallFact(
                callee: callee, receiverType: receiverType, caller: caller, callerType: callerType, placement: placement, place: place,
                objectArguments: handed, parameterArguments: parameterArguments, labels: labels, trailingClosures: trailingClosures,
                callerFunction: callerFunction)
        }
        if let caller, names.contains(caller) {
            call.caller = nil
            call.callerFunction = -1
        }
        switch placement {
        case .perform(let name) where names.contains(name): call.placement = .unknown
        case .performOnLocal(_, let made) where names.contains(made): call.placement = .unknown
        case .performOnOtherInstance(let name, _) where names.contains(name): call.placement = .unknown
        default: break
        }
        return call
    }
}
