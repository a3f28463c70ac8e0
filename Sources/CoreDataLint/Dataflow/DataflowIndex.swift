import Foundation

extension ProjectIndex {
    /// What the dataflow analysis tells the index where the declarations' own setups do
    /// not: the queue of a context property or function whose setups, stores and
    /// callers' arguments the analysis follows to one queue (a property set from
    /// `performBackgroundTask`'s context, a computed alias of another property, a
    /// context handed to an initializer through a local, a helper's result two calls
    /// deep), and the functions that return objects of a context they are handed or of
    /// a context property. A fact the index already tells is kept: the analysis fills
    /// what is unknown, and never overrides a queue the declarations tell.
    mutating func adopt(_ dataflow: DataflowSolver, declaredFunctions: [String: Int], declaredElsewhere: Set<String>) {
        for name in dataflow.propertyNames {
            guard let value = dataflow.property(name), value.kind == .context, value.owner.isKnown else { continue }
            guard contextProperties[name].map({ $0.queue == .unknown }) ?? true else { continue }
            let fact = Self.fact(value, subject: "`\(name)`", places: dataflow.places(ofProperty: name))
            contextProperties[name] = fact
            for key in typedContextProperties.keys where key.name == name && typedContextProperties[key]?.queue == .unknown {
                typedContextProperties[key] = fact
            }
        }
        for name in dataflow.functionNames where !declaredElsewhere.contains(name) {
            guard let value = dataflow.result(of: name) else { continue }
            if value.kind == .context, value.owner.isKnown, contextFunctions[name].map({ $0.queue == .unknown }) ?? true {
                contextFunctions[name] = Self.fact(value, subject: "`\(name)()`", places: dataflow.declarations(of: name).map(\.0.place))
            }
            guard declaredFunctions[name] == 1, value.kind == .object || value.kind == .objects,
                let (function, _) = dataflow.declarations(of: name).first, let type = function.returnType,
                type == CoreDataAPI.managedObjectType || managedObjectClasses.contains(type)
            else { continue }
            adoptObjectReturn(value, function: function, type: type)
        }
    }

    private mutating func adoptObjectReturn(_ value: AbstractValue, function: FunctionInput, type: String) {
        let isCollection = value.kind == .objects
        switch value.owner.identity {
        case .parameter(let label) where label != "self":
            let key = "\(function.name)(\(label):)"
            if objectReturns[key] == nil {
                objectReturns[key] = ObjectReturn(function: function.name, label: label, type: type, isCollection: isCollection)
            }
        case .property(let property):
            guard propertyObjectReturns[function.name] == nil, let fact = contextProperties[property] ?? contextFunctions[property],
                fact.queue != .unknown, !fact.makesNew
            else { return }
            let returned = PropertyObjectReturn(function: function.name, context: property, type: type, isCollection: isCollection)
            propertyObjectReturns[function.name] = PropertyObjectContext(returned: returned, fact: fact)
        default:
            return
        }
    }

    /// The fact, with a citation naming where the analysis read it.
    private static func fact(_ value: AbstractValue, subject: String, places: [SourcePlace]) -> ContextFact {
        let shown = places.prefix(2).map(\.described).joined(separator: ", ")
        let how: String
        switch value.owner.identity {
        case .made: how = "a context made for it"
        case .property(let other): how = "`\(other)`"
        default: how = "what it is set to"
        }
        return ContextFact(
            queue: value.owner.queue, citation: "\(subject) (\(shown)) holds \(how), \(value.owner.queue.article) context, as the dataflow follows it",
            files: Set(places.map(\.file)), makesNew: value.owner.makesNew)
    }
}

extension ProjectIndex {
    /// The summary of what a context extension's members do to their receiver, to a
    /// fixpoint: a member that uses straight another member which uses a confined member
    /// of its receiver (`disableEncryptionAtRest()` setting `self.encryptionKeys`, whose
    /// accessors read `userInfo`) uses it too.
    mutating func adoptExtensionUses(_ files: [FileFacts]) {
        let members = files.flatMap(\.dataflow.extensionMembers)
        guard !members.isEmpty, !contextExtensionUses.isEmpty else { return }
        var changed = true
        while changed {
            changed = false
            for member in members where contextExtensionUses[member.member] == nil && !CoreDataAPI.contextMethods.contains(member.member) {
                guard let used = member.uses.first(where: { contextExtensionUses[$0] != nil }), let inner = contextExtensionUses[used] else { continue }
                contextExtensionUses[member.member] = ContextExtensionUse(
                    member: member.member, isProperty: member.isProperty, confined: inner.confined, place: member.place)
                changed = true
            }
        }
    }
}

extension DataflowSolver {
    /// Where a property is declared and stored into, for citations.
    func places(ofProperty name: String) -> [SourcePlace] {
        properties(named: name).map(\.place) + stores(into: name).map(\.0.place)
    }
}

extension ProjectIndex {
    /// Writes to stderr the index's context properties and functions whose name or cited
    /// files contain `filter` ("" for all), with their queues and citations: what the
    /// rules will be told, for reading why a bug is missed (`CTXDEBUG_LINT_FACTS=Stack.swift
    /// ctxdebug lint .`; docs/lint.md, "Reading lint's facts").
    func dumpContexts(matching filter: String) {
        func matches(_ name: String, _ fact: ContextFact) -> Bool {
            filter.isEmpty || name.contains(filter) || fact.files.contains { $0.contains(filter) }
        }
        var lines: [String] = []
        for (name, fact) in contextProperties.sorted(by: { $0.key < $1.key }) where matches(name, fact) {
            lines.append("property \(name): \(fact.queue)\(fact.makesNew ? " (new at each read)" : "") \(fact.citation ?? "")")
        }
        for (key, fact) in typedContextProperties.sorted(by: { ($0.key.type, $0.key.name) < ($1.key.type, $1.key.name) }) where matches(key.name, fact) {
            lines.append("typed property \(key.type).\(key.name): \(fact.queue) \(fact.citation ?? "")")
        }
        for (name, fact) in contextFunctions.sorted(by: { $0.key < $1.key }) where matches(name, fact) {
            lines.append("function \(name)(): \(fact.queue)\(fact.makesNew ? " (new at each call)" : "") \(fact.citation ?? "")")
        }
        FileHandle.standardError.write(Data(("ctxdebug lint facts:\n" + lines.map { "  " + $0 + "\n" }.joined()).utf8))
    }
}
