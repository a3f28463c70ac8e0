import SwiftSyntax
import Yams

/// Other people's APIs as data, as CodeQL models frameworks in rows: the queue each
/// callback runs on, and the queue of the context each call or property wrapper gives.
/// The rows below are the built-in table (docs/lint.md, "The API table"); a lint
/// configuration's `api:` list adds rows of the same shape, which come first, so a row
/// of the user's is how lint learns a library (or changes what a built-in row says).
///
/// A row is one of:
///
///     - callback: dataTask           # a method whose closure argument runs on `queue`
///       receiver: URLSession.shared  #   optional: its receiver, as written or by its last name
///       label: completion            #   optional: the closure's argument label (none: any)
///       queue: background            #   main | background | private-context | here | unknown
///       why: a URLSession completion handler   # optional: for messages
///     - context: mr_default          # a function or property that returns a context,
///       queue: main                  #   main | private | unknown
///       new: false                   #   optional: a new context at each call
///     - context: '@Injected(\.viewContext)'   # a property wrapper, by its key path (quoted: YAML's '…')
///       queue: main
///
/// `private-context`: the closure's first parameter is a new private context and the
/// closure runs on its queue (`performBackgroundTask`); `here`: the closure runs before
/// the call returns, on the caller's queue; `unknown`: the closure may run anywhere
/// (what any API not in the table gets).
public struct APITable: Sendable, Equatable {
    enum CallbackQueue: String, Sendable, Equatable {
        case main, background, privateContext = "private-context", here, unknown
    }

    struct Callback: Sendable, Equatable {
        var method: String
        var receiver: String?
        var label: String?
        var queue: CallbackQueue
        var why: String?
    }

    struct ContextRow: Sendable, Equatable {
        var name: String
        var queue: ContextQueue
        var makesNew = false
        /// Where the row is: "the API table", or the configuration file.
        var source: String
    }

    /// An operator that moves what follows it onto the scheduler its argument names:
    /// Combine's `receive(on:)`.
    struct Delivery: Sendable, Equatable {
        var method: String
        var label: String
    }

    private(set) var callbacks: [Callback] = []
    private(set) var contexts: [ContextRow] = []
    private(set) var deliveries: [Delivery] = []
    /// Property wrappers whose property holds managed objects of a context of this
    /// queue (`@FetchRequest`: the view context's), by the wrapper's name.
    private(set) var objectWrappers: [ContextRow] = []

    /// No rows.
    public init() {}

    /// Rows read from YAML text (a list of rows, as the configuration's `api:` holds);
    /// `source` names the text in errors and in the messages that cite a row.
    public init(yaml text: String, source: String) throws(LintError) {
        let rows: Any?
        do {
            rows = try Yams.load(yaml: text)
        } catch {
            throw LintError(path: source, reason: "is not valid YAML (\(error))")
        }
        try self.init(rows: rows, source: source)
    }

    /// The table in this file, `builtInRows`.
    public static let builtIn: APITable = {
        do {
            return try APITable(yaml: builtInRows, source: "the API table")
        } catch {
            preconditionFailure("the built-in API table: \(error)")
        }
    }()

    /// `other`'s rows before these: the first row that fits a call decides.
    public func adding(_ other: APITable) -> APITable {
        var table = self
        table.callbacks = other.callbacks + callbacks
        table.contexts = other.contexts + contexts
        table.deliveries = other.deliveries + deliveries
        table.objectWrappers = other.objectWrappers + objectWrappers
        return table
    }

    /// Rows as YAML loads them: a list of mappings. An error names `source` and the row.
    init(rows: Any?, source: String) throws(LintError) {
        guard let rows else { return }
        guard let list = rows as? [Any] else { throw LintError(path: source, reason: "'api' must be a list of rows, not '\(rows)'") }
        for (offset, row) in list.enumerated() {
            guard let row = row as? [String: Any] else { throw LintError(path: source, reason: "'api' row \(offset + 1) must be a mapping") }
            try add(row, number: offset + 1, source: source)
        }
    }

    static let rowKeys: Set<String> = ["callback", "context", "delivery", "objects", "receiver", "label", "queue", "new", "why"]

    private mutating func add(_ row: [String: Any], number: Int, source: String) throws(LintError) {
        func fail(_ reason: String) -> LintError { LintError(path: source, reason: "'api' row \(number): \(reason)") }
        if let key = row.keys.sorted().first(where: { !Self.rowKeys.contains($0) }) {
            throw fail("unknown key '\(key)'; the keys are \(Self.rowKeys.sorted().joined(separator: ", "))")
        }
        if let method = row["delivery"] as? String, row["callback"] == nil, row["context"] == nil {
            deliveries.append(Delivery(method: method, label: row["label"] as? String ?? "on"))
            return
        }
        guard let queue = row["queue"] as? String else { throw fail("'queue' must be a string") }
        let kinds = ["callback", "context", "objects"].filter { row[$0] != nil }
        guard kinds.count == 1 else { throw fail("a row names one 'callback', one 'context', one 'objects' or one 'delivery'") }
        if let wrapper = row["objects"] as? String {
            let queues: [String: ContextQueue] = ["main": .main, "private": .private, "unknown": .unknown]
            guard let kind = queues[queue] else { throw fail("an objects row's 'queue' is main, private or unknown, not '\(queue)'") }
            objectWrappers.append(ContextRow(name: wrapper, queue: kind, source: source))
        } else if let method = row["callback"] as? String {
            guard let kind = CallbackQueue(rawValue: queue) else { throw fail("a callback's 'queue' is main, background, private-context, here or unknown, not '\(queue)'") }
            callbacks.append(Callback(method: method, receiver: row["receiver"] as? String, label: row["label"] as? String, queue: kind, why: row["why"] as? String))
        } else if let name = row["context"] as? String {
            let kinds: [String: ContextQueue] = ["main": .main, "private": .private, "unknown": .unknown]
            guard let kind = kinds[queue] else { throw fail("a context's 'queue' is main, private or unknown, not '\(queue)'") }
            contexts.append(ContextRow(name: name, queue: kind, makesNew: row["new"] as? Bool ?? false, source: source))
        } else {
            throw fail("a row's 'callback', 'context' or 'objects' must be a string")
        }
    }

    /// The first callback row that fits `receiver.method(label: { … })`.
    func callback(method: String, receiver: ExprSyntax?, label: String?) -> Callback? {
        callbacks.first { row in
            guard row.method == method, row.label == nil || row.label == (label ?? "") else { return false }
            guard let expected = row.receiver else { return true }
            guard let receiver else { return false }
            return Expressions.text(receiver) == expected || Expressions.lastName(receiver) == expected
        }
    }

    /// The objects row of a property's wrapper (`@FetchRequest(sortDescriptors: [])`).
    func objectWrapper(of variable: VariableDeclSyntax) -> ContextRow? {
        guard !objectWrappers.isEmpty, !variable.attributes.isEmpty else { return nil }
        for element in variable.attributes {
            guard let attribute = element.as(AttributeSyntax.self) else { continue }
            let name = Expressions.trimmedText(attribute.attributeName)
            if let row = objectWrappers.first(where: { $0.name == name || $0.name == "@" + name }) { return row }
        }
        return nil
    }

    /// The scheduler of the nearest delivery operator upstream of `base` in a chain
    /// (`publisher.receive(on: DispatchQueue.main).map { … }.sink { … }`): every
    /// closure downstream of it runs there, whatever operators come between.
    func deliveryScheduler(upstreamOf base: ExprSyntax?) -> ExprSyntax? {
        guard !deliveries.isEmpty else { return nil }
        var current = base.map(Expressions.unwrapped)
        var steps = 0
        while let call = current?.as(FunctionCallExprSyntax.self), let member = call.calledExpression.as(MemberAccessExprSyntax.self), steps < 32 {
            let method = member.declName.baseName.text
            if let row = deliveries.first(where: { $0.method == method }), let scheduler = Expressions.argument(row.label, of: call) {
                return Expressions.unwrapped(scheduler)
            }
            current = member.base.map(Expressions.unwrapped)
            steps += 1
        }
        return nil
    }

    /// The context rows as facts of no file, for the index: a call of `mr_default()`, a
    /// property set from it, or one with `@Environment(\.managedObjectContext)`, holds a
    /// context of the row's queue, as a project function declared so would. The first
    /// row of a name decides.
    var declarations: [ContextDeclaration] {
        var seen: Set<String> = []
        return contexts.compactMap { row in
            guard seen.insert(row.name).inserted else { return nil }
            return ContextDeclaration(
                name: row.name, kind: .function, evidence: row.queue == .unknown ? nil : .queue(row.queue), place: SourcePlace(file: row.source, line: 0),
                makesNew: row.makesNew)
        }
    }

    /// The key a property wrapper is known by in the table: `@Environment(\.managedObjectContext)`.
    static func wrapperKey(_ attribute: AttributeSyntax) -> String? {
        guard let arguments = attribute.arguments.map(Expressions.trimmedText), arguments.hasPrefix("\\") else { return nil }
        let last = arguments.split(separator: ".").last.map(String.init) ?? arguments
        return "@\(Expressions.trimmedText(attribute.attributeName))(\\.\(last))"
    }

    /// The built-in rows: Foundation, Core Data, SwiftUI, and the Core Data libraries and
    /// dependency containers apps use. Each callback row says where Apple's (or the
    /// library's) documentation puts the closure; a DI container's context is whatever
    /// the app registered, so it is unknown until a configuration row says.
    static let builtInRows = #"""
        # Combine: the operators after receive(on:) run their closures on its scheduler
        # (DispatchQueue.main, RunLoop.main and OperationQueue.main: the main queue).
        - delivery: receive
          label: on
        # SwiftUI: a @FetchRequest's results are objects of the environment's context,
        # the view context.
        - objects: FetchRequest
          queue: main
        - objects: SectionedFetchRequest
          queue: main
        # Foundation: URLSession.shared calls its completion handlers on its delegate
        # queue, a serial operation queue off the main queue.
        - callback: dataTask
          receiver: URLSession.shared
          queue: background
          why: a URLSession completion handler (URLSession.shared's delegate queue)
        - callback: downloadTask
          receiver: URLSession.shared
          queue: background
          why: a URLSession completion handler (URLSession.shared's delegate queue)
        - callback: uploadTask
          receiver: URLSession.shared
          queue: background
          why: a URLSession completion handler (URLSession.shared's delegate queue)
        # OperationQueue.main runs its operations on the main thread.
        - callback: addOperation
          receiver: OperationQueue.main
          queue: main
        - callback: addOperation
          receiver: .main
          queue: main
        # Core Data: performBackgroundTask's block gets a new private context, on its queue.
        - callback: performBackgroundTask
          queue: private-context
        # SwiftUI: the environment's context is the container's viewContext.
        - context: '@Environment(\.managedObjectContext)'
          queue: main
        # MagicalRecord: the default context is a main-queue context; the root saving
        # context and the contexts it makes are private; saveWithBlock runs its block on
        # a new private context's queue.
        - context: mr_default
          queue: main
        - context: MR_defaultContext
          queue: main
        - context: mr_rootSaving
          queue: private
        - context: MR_rootSavingContext
          queue: private
        - context: mr_new
          queue: private
          new: true
        - context: MR_newContext
          queue: private
          new: true
        - context: MR_context
          queue: private
          new: true
        - context: mr_context
          queue: private
          new: true
        - context: MR_contextWithParent
          queue: private
          new: true
        - callback: save
          receiver: MagicalRecord
          queue: private-context
          why: MagicalRecord's save block, on a new private context's queue
        - callback: saveWithBlock
          receiver: MagicalRecord
          queue: private-context
          why: MagicalRecord's save block, on a new private context's queue
        - callback: MR_saveWithBlock
          queue: private-context
          why: MagicalRecord's save block, on a new private context's queue
        # CoreStore: an asynchronous transaction runs on the transaction's private queue.
        - callback: perform
          label: asynchronous
          queue: background
          why: a CoreStore asynchronous transaction (its own private queue)
        # Dependency containers: the context is what the app registered. Unknown until a
        # configuration row names the key (`context: '@Injected(\.viewContext)'`).
        - context: '@Injected(\.managedObjectContext)'
          queue: unknown
        - context: '@LazyInjected(\.managedObjectContext)'
          queue: unknown
        """#
}
