import SwiftSyntax

extension SemanticWalker {
    /// Where a method runs, when a framework, Swift concurrency or every call site in
    /// the project tells.
    func placeFunction(_ function: inout Frame, _ node: FunctionDeclSyntax, key: String, isIBAction: Bool) {
        if placeByFramework(&function, node, isIBAction: isIBAction) { return }
        // A local function runs where the function around it does.
        guard frames.count == 1 else { return }
        if placeByConcurrency(&function, node) { return }
        if placeAsDelegate(&function, node) { return }
        placeByCallers(&function, name: node.name.text, key: key)
    }

    /// An @IBAction, @MainActor code, or a method a framework calls on the main queue.
    private func placeByFramework(_ function: inout Frame, _ node: FunctionDeclSyntax, isIBAction: Bool) -> Bool {
        let type = typeNames.last
        let name = node.name.text
        let isAsync = node.signature.effectSpecifiers?.asyncSpecifier != nil
        let isMainActor = Attributes.has("MainActor", in: node.attributes) || index.isMainActor(type)
        let framework: String?
        if isIBAction {
            framework = "an @IBAction"
        } else if isMainActor {
            framework = "@MainActor"
        } else {
            framework = index.entryReason(
                name: name, firstLabel: node.signature.parameterClause.parameters.first?.firstName.text, type: type, isAsync: isAsync)
        }
        if let framework {
            function.queue = .main
            function.reason = "`\(name)()` runs on the main queue (\(framework))"
            // XCTest calls its test methods on the main thread without isolating them:
            // a Task made there runs on the global executor.
            function.taskInherits = !framework.hasPrefix("an XCTest")
            return true
        }
        return false
    }

    /// Swift concurrency's placements: `@concurrent`, an actor's method, a nonisolated
    /// async function, a test that Swift Testing or XCTest runs off the main thread.
    private func placeByConcurrency(_ function: inout Frame, _ node: FunctionDeclSyntax) -> Bool {
        let type = typeNames.last
        let name = node.name.text
        let isAsync = node.signature.effectSpecifiers?.asyncSpecifier != nil
        let modifiers = node.modifiers.map(\.name.text)
        // `nonisolated(nonsending)`, or an `isolated` parameter (`isolation: isolated
        // (any Actor)? = #isolation`): the function runs on its caller's actor.
        let runsOnCallersActor = FactCollector.runsOnCallersActor(node)
        // `@concurrent` runs an async function on the global executor, whatever the
        // project's default isolation.
        if isAsync, Attributes.has("concurrent", in: node.attributes) {
            function.queue = .background("Swift's global executor")
            function.reason = "`\(name)()` is @concurrent, which Swift runs on its global executor, not on the main queue nor on a context's queue"
            function.taskInherits = true
            return true
        }
        let isStatic = modifiers.contains("static") || modifiers.contains("class"), isNonisolated = modifiers.contains("nonisolated")
        let isTest = Attributes.has("Test", in: node.attributes)
        // Most functions are neither async nor tests: then only an actor places them, a
        // question asked once per type.
        let mayBePlaced = isAsync || isTest || (!isStatic && !isNonisolated && index.isActor(type))
        if mayBePlaced, let placement = index.concurrencyPlacement(
            name, type: type, isAsync: isAsync && !runsOnCallersActor, isNonisolated: isNonisolated, isStatic: isStatic, isTest: isTest)
        {
            switch placement {
            case .actor(let actor):
                function.queue = .background("the executor of the actor '\(actor)'")
                function.reason = "`\(name)()` is a method of the actor '\(actor)', which runs on the actor's executor, not on a context's queue"
            case .nonisolatedAsync:
                function.queue = .background("Swift's global executor")
                function.reason = "`\(name)()` is a nonisolated async function, which Swift runs on its global executor, not on the main queue nor on a context's queue"
            case .swiftTestingTest:
                function.queue = .background("a Swift Testing thread")
                function.reason = "`\(name)()` is a Swift Testing test not marked @MainActor, which Swift Testing runs off the main thread"
            case .asyncXCTest:
                function.queue = .background("an XCTest async test's thread")
                function.reason = "`\(name)()` is an async XCTest test method not marked @MainActor, which XCTest runs off the main thread"
            }
            function.taskInherits = true
            return true
        }
        return false
    }

    /// A URLSession or WCSession delegate method, on its session's delegate queue.
    private func placeAsDelegate(_ function: inout Frame, _ node: FunctionDeclSyntax) -> Bool {
        let type = typeNames.last
        let name = node.name.text
        let isStatic = node.modifiers.contains { $0.name.text == "static" || $0.name.text == "class" }
        if name == "urlSession", let session = index.sessionDelegateQueue(type) {
            switch session {
            case .main:
                function.queue = .main
                function.reason = "`\(name)()` is a URLSession delegate method of a session made with delegateQueue: .main"
            case .background:
                function.queue = .background("the URLSession's delegate queue")
                function.reason = "`\(name)()` is a URLSession delegate method, which runs on the session's own delegate queue (its delegateQueue is nil or a new OperationQueue)"
            case .unknown:
                break
            }
            return true
        }
        if node.signature.parameterClause.parameters.first.flatMap({ TypeNames.base(of: $0.type) }) == "WCSession", !isStatic,
            index.isWatchSessionDelegate(type)
        {
            // Apple's WCSession.h, above WCSessionDelegate: "All delegate methods will be
            // called on the same queue. The delegate queue is a non-main serial queue."
            function.queue = .background("WatchConnectivity's delegate queue")
            function.reason = "`\(name)()` is a WCSessionDelegate method, which WCSession calls on its delegate queue, a non-main serial queue (WCSession.h)"
            return true
        }
        return false
    }

    /// Where every call site in the project runs the method (`CallGraph`).
    private func placeByCallers(_ function: inout Frame, name: String, key: String) {
        guard let inferred = index.functionQueue(of: key) else { return }
        switch inferred.queue {
        case .main where inferred.onSomePaths:
            function.queue = .main
            function.reason = "`\(name)()` runs on the main queue \(inferred.reason)"
        case .main:
            function.queue = .main
            function.reason = "`\(name)()` runs on the main queue (\(inferred.reason))"
        case .context(let property):
            guard let fact = index.contextProperty(named: property) else { return }
            let context = ContextRef.indexed(property, fact, currentFile: fileName)
            function.queue = .context(context)
            function.reason = "`\(name)()` runs on \(property)'s queue (\(inferred.reason))"
        case .otherInstanceContext(let property, let andWait):
            guard let fact = index.contextProperty(named: property), fact.queue == .private else { return }
            var context = ContextRef.indexed(property, fact, currentFile: fileName)
            context.owner = .parameter("another instance")
            context.name = "another instance's \(property)"
            function.queue = .context(context)
            // performAndWait runs its block on the caller's thread: a main-queue context
            // there is not judged.
            function.isPerformAndWait = andWait
            function.reason = "`\(name)()` runs on the queue of another instance's \(property), not its own (\(inferred.reason))"
        case .privateContext(let queueName):
            function.queue = .privateContextQueue(queueName)
            function.reason = "`\(name)()` runs on \(queueName) (\(inferred.reason))"
        case .background:
            function.queue = .background("a background queue")
            function.reason = "`\(name)()` runs on a background queue, off the main queue and every context's (\(inferred.reason))"
        case .concurrencyExecutor:
            function.queue = .background("a Swift concurrency executor")
            function.reason = "`\(name)()` runs on a Swift concurrency executor, off the main queue and every context's (\(inferred.reason))"
        }
    }

    /// A method (not a local function) that is synchronous, not `@MainActor` and placed
    /// on no queue, of a type isolated to no actor: its `Task { }` runs on the global executor.
    func startsTasksOffActors(_ function: Frame, _ node: FunctionDeclSyntax) -> Bool {
        guard frames.count == 1, function.queue == .caller, node.signature.effectSpecifiers?.asyncSpecifier == nil, node.body != nil,
            !Attributes.has("MainActor", in: node.attributes), !node.modifiers.contains(where: { $0.name.text == "isolated" })
        else { return false }
        return index.startsTasksOffActors(typeNames.last)
    }
}
