import SwiftSyntax

/// Where each function runs, from its call sites: a function declared once whose every
/// call site runs on the main queue (or inside the same context's `perform`) runs there.
struct CallGraph {
    private var functions: [String: [FunctionFact]] = [:]
    private var calls: [String: [CallFact]] = [:]
    private var escaping: Set<String> = []
    /// The keys of `functions` whose base name is in `escaping` (named in `#selector` or
    /// handed on as a value), found once: every round of the inference asks.
    private var escapingKeys: Set<String> = []
    private let entryPoints: EntryPoints
    private let contexts: [String: ContextFact]
    private let contextFunctions: [String: ContextFact]

    init(
        files: [FileFacts], entryPoints: EntryPoints, contexts: [String: ContextFact], contextFunctions: [String: ContextFact],
        declaredElsewhere: Set<String>, overloads: [String: [ParameterLabels]] = [:]
    ) {
        self.entryPoints = entryPoints
        self.contexts = contexts
        self.contextFunctions = contextFunctions
        // Room for every function at once in a file's own index (its functions bound its
        // keys), not grown key by key; not in the project's, where names declared alike
        // in many types would make the bound far above the keys.
        let declaredCount = files.reduce(0) { $0 + $1.functions.count }
        if declaredCount <= 512 { functions.reserveCapacity(declaredCount) }
        // An overloaded name's functions are known by their full names.
        for file in files {
            for function in file.functions {
                let isOverloaded = !overloads.isEmpty && overloads[function.name] != nil
                functions[isOverloaded ? function.signature.fullName(function.name) : function.name, default: []].append(function)
            }
            escaping.formUnion(file.escapingNames)
        }
        // Another file's function of the same name: no one function, as in the project.
        for name in declaredElsewhere {
            for key in overloads[name].map({ $0.map { $0.fullName(name) } }) ?? [name] {
                guard let first = functions[key]?.first else { continue }
                functions[key]?.append(
                    FunctionFact(name: name, firstLabel: nil, type: nil, isIBAction: false, isMainActor: false, isCalledFromOutside: true, place: first.place))
            }
        }
        for key in functions.keys where escaping.contains(Self.base(key)) { escapingKeys.insert(key) }
        // Each overload's labels split once, not at every call of its name.
        let overloaded = overloads.mapValues { signatures in signatures.map { Overload(signature: $0, labels: $0.labels, key: $0.fullName("")) } }
        for file in files { addCalls(of: file, overloaded: overloaded) }
    }

    /// An overloaded function's signature, its labels and its key's suffix, split once.
    private typealias Overload = (signature: ParameterLabels, labels: [String], key: String)

    /// Keeps the calls `file` makes of the project's functions, each as a call of the
    /// functions it reaches (an overloaded name's: the overloads its labels fit).
    private mutating func addCalls(of file: FileFacts, overloaded: [String: [Overload]]) {
        // Whether each of the file's functions is overloaded, asked once per function,
        // not once per call it makes.
        let callerIsOverloaded = overloaded.isEmpty ? [] : file.functions.map { overloaded[$0.name] != nil }
        // Each of the file's argument label lists split once, by its number, not at
        // every call of an overloaded name that has it.
        var splitLabels: [[String]?] = []
        for index in file.calls.indices {
            // A call of no function the project declares is dropped before it is
            // copied (most calls: `fetch`, `append`, UIKit's).
            let declared = functions[file.calls[index].callee]
            guard declared != nil || (!overloaded.isEmpty && overloaded[file.calls[index].callee] != nil) else { continue }
            var call = file.calls[index]
            if !overloaded.isEmpty, let caller = call.caller {
                let isOverloaded = call.callerFunction >= 0 ? callerIsOverloaded[Int(call.callerFunction)] : overloaded[caller] != nil
                if isOverloaded {
                    call.caller = call.callerFunction >= 0 ? file.functions[Int(call.callerFunction)].signature.fullName(caller) : nil
                }
            }
            // A call of an overloaded name reaches the overloads its labels fit; one
            // they fit none of, any of them. An overloaded name is no key of
            // `functions` (its declarations are known by their full names): a name
            // that is one is asked no more.
            if let declared {
                add(call, as: call.callee, declared)
                continue
            }
            guard !overloaded.isEmpty, let signatures = overloaded[call.callee] else { continue }
            let labels: [String]
            let number = Int(call.labels)
            if file.labelTable.indices.contains(number) {
                if splitLabels.isEmpty { splitLabels = Array(repeating: nil, count: file.labelTable.count) }
                if let known = splitLabels[number] {
                    labels = known
                } else {
                    labels = ParameterLabels.split(file.labelTable[number])
                    splitLabels[number] = labels
                }
            } else {
                labels = ParameterLabels.split(file.callLabels(call))
            }
            let fitting = signatures.filter { $0.signature.accepts(labels, trailingClosures: call.trailingClosures, own: $0.labels) }
            for key in Set((fitting.isEmpty ? signatures : fitting).map { call.callee + $0.key }) { add(call, as: key) }
        }
    }

    /// Keeps `call` as a call of the function known by `key`, when the project declares it.
    private mutating func add(_ call: CallFact, as key: String, _ known: [FunctionFact]? = nil) {
        guard let declared = known ?? functions[key] else { return }
        // `Type.method()` calls the project's method only when that type declares it.
        if let receiver = call.receiverType {
            let type = receiver == "Self" ? call.callerType : receiver
            guard declared.contains(where: { $0.type == type && $0.isStatic }) else { return }
        }
        calls[key, default: []].append(call)
    }

    /// A function's key without its labels: what `#selector` and function values name.
    private static func base(_ key: String) -> String {
        // On the UTF-8 bytes: "(" is one byte, never part of another character.
        guard let open = key.utf8.firstIndex(of: UInt8(ascii: "(")) else { return key }
        return String(key[..<open])
    }

    /// "`reload()`", "`getDefaultPrinter(context:)`": a caller, for messages.
    private static func called(_ key: String) -> String {
        key.contains("(") ? "`\(key)`" : "`\(key)()`"
    }

    func inferredQueues() -> [String: FunctionQueueFact] {
        var inferred: [String: FunctionQueueFact] = [:]
        var grew = true
        while grew {
            grew = false
            for (name, declared) in functions where inferred[name] == nil && declared.count == 1 {
                let function = declared[0]
                if let reason = entryPoints.reason(function) {
                    inferred[name] = FunctionQueueFact(queue: .main, reason: reason)
                    grew = true
                } else if !function.isCalledFromOutside, !runsApart(function), !escapingKeys.contains(name), let fact = fromCallSites(name, inferred) {
                    inferred[name] = fact
                    grew = true
                }
            }
        }
        addMainPaths(&inferred)
        return inferred
    }

    /// Parameters whose every call site hands objects fetched from one context of known
    /// queue, for functions declared once that nothing else may call. A call site may
    /// also hand on an object parameter of its own caller that this finds (`start(for:)`
    /// hands its `conversation` to `fire(for:)`): repeated until nothing more is found.
    func parameterObjects() -> [String: [ParameterObjects]] {
        var result: [String: [ParameterObjects]] = [:]
        var grew = true
        while grew {
            grew = false
            for (name, declared) in functions where declared.count == 1 && !declared[0].objectParameters.isEmpty {
                let function = declared[0]
                guard !function.isCalledFromOutside, !escapingKeys.contains(name), let sites = calls[name], !sites.isEmpty else { continue }
                for (label, parameter) in function.objectParameters where result[name]?.contains(where: { $0.parameter == parameter }) != true {
                    var agreed: (String, ContextFact)?
                    for site in sites {
                        guard let known = objects(handedAs: label, at: site, result), agreed == nil || (agreed?.0 == known.0 && agreed?.1.queue == known.1.queue)
                        else { agreed = nil; break }
                        agreed = agreed ?? known
                    }
                    guard let (context, fact) = agreed else { continue }
                    result[name, default: []].append(ParameterObjects(parameter: parameter, context: context, fact: fact, place: sites[0].place))
                    grew = true
                }
            }
        }
        return result
    }

    /// The context of the objects a call site hands as `label`: fetched by the caller, or
    /// an object parameter of the caller (declared once) that every call of it fills.
    private func objects(handedAs label: String, at site: CallFact, _ found: [String: [ParameterObjects]]) -> (String, ContextFact)? {
        if let evidence = site.objectArguments[label] { return resolve(evidence) }
        guard let parameter = site.parameterArguments[label], let caller = site.caller, functions[caller]?.count == 1,
            let objects = found[caller]?.first(where: { $0.parameter == parameter })
        else { return nil }
        return (objects.context, objects.fact)
    }

    /// The context a fetch's receiver names: `viewContext`, or a property or function of
    /// known queue that does not make a new context at each use.
    private func resolve(_ evidence: QueueEvidence) -> (String, ContextFact)? {
        switch evidence {
        case .queue(.main): return ("viewContext", ContextFact(queue: .main, files: []))
        case .name(let name):
            guard let fact = contexts[name] ?? contextFunctions[name], fact.queue != .unknown, !fact.makesNew else { return nil }
            return (name, fact)
        case .queue, .unknown: return nil
        }
    }

    /// An `async` function not marked `@MainActor`, or an actor's method: Swift
    /// concurrency runs it on an executor of its own, not on its callers' queue.
    private func runsApart(_ function: FunctionFact) -> Bool {
        guard !function.isMainActor else { return false }
        return function.isAsync || entryPoints.isActorMethod(function)
    }

    /// Functions not placed by every call site that some call site certainly runs on
    /// the main queue: `DispatchQueue.main.async { self.refresh() }`, or a direct call
    /// from a function that runs on the main queue (on every or some paths).
    private func addMainPaths(_ inferred: inout [String: FunctionQueueFact]) {
        var grew = true
        while grew {
            grew = false
            for (name, declared) in functions where inferred[name] == nil && declared.count == 1 && !escapingKeys.contains(name) && !runsApart(declared[0]) {
                for site in calls[name] ?? [] {
                    guard let reason = mainPathReason(site, inferred) else { continue }
                    inferred[name] = FunctionQueueFact(queue: .main, reason: reason, onSomePaths: true)
                    grew = true
                    break
                }
            }
        }
    }

    private func mainPathReason(_ site: CallFact, _ inferred: [String: FunctionQueueFact]) -> String? {
        // Made only for an answer: most sites give none.
        var place: String { site.place.described }
        switch site.placement {
        case .main:
            return "when called on the main queue, as at \(place)"
        case .direct:
            guard let caller = site.caller else { return nil }
            if let function = functions[caller]?.first(where: { $0.type == site.callerType }), entryPoints.reason(function) != nil {
                return "when called from \(Self.called(caller)), which runs on the main queue, at \(place)"
            }
            guard functions[caller]?.count == 1, let known = inferred[caller], known.queue == .main else { return nil }
            return "when called from \(Self.called(caller)) at \(place), which runs on the main queue \(known.reason)"
        default:
            return nil
        }
    }

    /// The queue every call site agrees on, when it does.
    private func fromCallSites(_ name: String, _ inferred: [String: FunctionQueueFact]) -> FunctionQueueFact? {
        guard let sites = calls[name], !sites.isEmpty else { return nil }
        var agreed: FunctionQueueFact?
        for site in sites {
            guard let queue = queue(of: site, inferred), agreed == nil || agreed?.queue == queue.queue else { return nil }
            agreed = agreed ?? queue
        }
        return agreed
    }

    private func queue(of site: CallFact, _ inferred: [String: FunctionQueueFact]) -> FunctionQueueFact? {
        // Made only for an answer: most sites give none.
        var place: String { site.place.described }
        switch site.placement {
        case .main:
            return FunctionQueueFact(queue: .main, reason: "called only on the main queue, as at \(place)")
        case .perform(let context):
            guard let fact = contexts[context], fact.queue != .unknown else { return nil }
            return FunctionQueueFact(queue: .context(context), reason: "called only inside \(context).perform { }, as at \(place)")
        case .performOnOtherInstance(let context, let andWait):
            guard let fact = contexts[context], fact.queue == .private else { return nil }
            return FunctionQueueFact(
                queue: .otherInstanceContext(context, andWait: andWait),
                reason: "called on a new instance, only inside the caller's own \(context).\(andWait ? "performAndWait" : "perform") { }, as at \(place)")
        case .privateQueue(let name, let block):
            return FunctionQueueFact(queue: .privateContext(name), reason: "called only inside \(block), as at \(place)")
        case .performOnLocal(let local, let made):
            guard let fact = contexts[made] ?? contextFunctions[made], fact.queue == .private else { return nil }
            let name = "the queue of the private-queue context '\(local)'"
            return FunctionQueueFact(queue: .privateContext(name), reason: "called only inside \(local).perform { }, a private-queue context (`\(made)`), as at \(place)")
        case .background:
            return FunctionQueueFact(queue: .background, reason: "called only on a background queue, as at \(place)")
        case .direct:
            guard let caller = site.caller else { return nil }
            let callerQueue: FunctionQueueFact.Queue?
            var framework: String?
            if let function = functions[caller]?.first(where: { $0.type == site.callerType }), entryPoints.reason(function) != nil {
                callerQueue = .main
            } else if let function = functions[caller]?.first(where: { $0.type == site.callerType }), entryPoints.isWatchSessionDelegateMethod(function) {
                callerQueue = .background
                framework = "on WatchConnectivity's delegate queue (a WCSessionDelegate method), off the main queue and every context's"
            } else if functions[caller]?.count == 1, let function = functions[caller]?.first, entryPoints.concurrencyPlacement(of: function) != nil {
                callerQueue = .concurrencyExecutor
            } else if let known = inferred[caller], functions[caller]?.count == 1, !known.onSomePaths {
                callerQueue = known.queue
            } else {
                callerQueue = nil
            }
            guard let callerQueue else { return nil }
            let on =
                switch callerQueue {
                case .context(let context): "on \(context)'s queue"
                case .main: "on the main queue"
                case .concurrencyExecutor: "on a Swift concurrency executor (an actor's method, a nonisolated async function, a test off the main thread)"
                case .privateContext(let name): "on \(name)"
                case .otherInstanceContext(let name, _): "on another instance's \(name) queue"
                case .background: "on a background queue"
                }
            return FunctionQueueFact(queue: callerQueue, reason: "called only from code \(framework ?? on), as from \(Self.called(caller)) at \(place)")
        case .unknown:
            return nil
        }
    }
}
