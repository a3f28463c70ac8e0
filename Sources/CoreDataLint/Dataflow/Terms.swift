/// What the analysis knows of an expression before the project is read: a value known
/// here (`viewContext`, a context made here), or one that names what another place
/// tells (a parameter, a property, a project function's result). The project-wide
/// solver (`DataflowSolver`) evaluates terms to `AbstractValue`s, to a fixpoint.
indirect enum ValueTerm: Sendable, Hashable {
    /// Known where it is written.
    case value(AbstractValue)
    /// The value the function's caller hands for the parameter with this argument label
    /// ("_" for none, "self" for the receiver of a context extension's method).
    case parameter(String)
    /// The property of this name (stored, lazy or computed), of whichever instance.
    case property(String)
    /// A call of a project function, initializer or library call by its base name, with
    /// its labelled arguments; `receiver` is the value it is called on.
    case call(String, receiver: ValueTerm?, arguments: [TermArgument])
    /// `context.fetch(…)`, `context.object(with:)`, `Entity(context:)`: objects of the
    /// context the term holds.
    case objects(of: ValueTerm, collection: Bool)
    /// `object.relationship`: a member of a managed object, which holds objects of the
    /// same context when the project declares it of a managed object type.
    case member(ValueTerm, String)
    /// `objects.first`, `for object in objects`.
    case element(ValueTerm)
    /// A `var` assigned twice, `a ?? b`, `c ? a : b`, the returns of a function.
    case join(ValueTerm, ValueTerm)
    /// `NSManagedObjectContext(concurrencyType: type)` where the type is not written
    /// there: a context made at `site`, on the queue of the concurrency type the term
    /// holds (a parameter's: `createContext(.privateQueueConcurrencyType, name:)`).
    case madeContext(site: String, queue: ValueTerm)
    /// Something the code does not tell.
    case unknown

    /// Terms deeper than this are `unknown`: the analysis stays linear in the code.
    static let maximumDepth = 12

    var depth: Int {
        switch self {
        case .value, .parameter, .property, .unknown: 1
        case .call(_, let receiver, let arguments): 1 + max(receiver?.depth ?? 0, arguments.map(\.term.depth).max() ?? 0)
        case .objects(let base, _), .member(let base, _), .element(let base), .madeContext(_, let base): 1 + base.depth
        case .join(let a, let b): 1 + max(a.depth, b.depth)
        }
    }

    /// `a` joined with `b`, where nil is no value; too deep a term is `unknown`.
    static func joined(_ a: ValueTerm?, _ b: ValueTerm?) -> ValueTerm? {
        guard let a else { return b }
        guard let b, a != b, !a.joins(b) else { return a }
        let joined = ValueTerm.join(a, b)
        return joined.depth > maximumDepth ? .unknown : joined
    }

    /// Whether `term` is one of the terms this join (or this term) joins: joining it
    /// again adds nothing.
    func joins(_ term: ValueTerm) -> Bool {
        if self == term { return true }
        guard case .join(let a, let b) = self else { return false }
        return a.joins(term) || b.joins(term)
    }

    /// The term, or `unknown` when it is too deep.
    var bounded: ValueTerm { depth > Self.maximumDepth ? .unknown : self }

    /// Whether the term names a parameter of its function.
    var mentionsParameter: Bool {
        switch self {
        case .parameter: true
        case .value, .property, .unknown: false
        case .call(_, let receiver, let arguments): receiver?.mentionsParameter == true || arguments.contains { $0.term.mentionsParameter }
        case .objects(let base, _), .member(let base, _), .element(let base), .madeContext(_, let base): base.mentionsParameter
        case .join(let a, let b): a.mentionsParameter || b.mentionsParameter
        }
    }
}

struct TermArgument: Sendable, Hashable {
    var label: String
    var term: ValueTerm
}

/// One function, initializer, or property getter as the interpreter read it: the
/// inputs of its summary.
struct FunctionInput: Sendable {
    /// The base name (`user`, or the type's name for an initializer).
    var name: String
    /// The argument labels, "_" for none.
    var labels: [String]
    /// The labels of the parameters with a default value (a call may leave them out).
    var defaulted: Set<String> = []
    var type: String?
    /// What it returns; nil when it returns no value the analysis follows.
    var result: ValueTerm?
    /// The declared return type's element and whether it is a collection.
    var returnType: String?
    var returnsCollection = false
    var place: SourcePlace
}

/// `self.context = context`, `controller.managedObjectContext = stack.savingContext`:
/// a value stored into a property, in the function (by its index in the file's
/// `functions`; nil at the top level or in a property's setup).
struct StoreInput: Sendable {
    var property: String
    var term: ValueTerm
    var function: Int?
    var place: SourcePlace
}

/// A property's own setup: a stored property's initial value, a `lazy` property's, a
/// computed property's getter.
struct PropertyInput: Sendable {
    enum Kind: Sendable { case stored, lazy, computed }
    var name: String
    var type: String?
    var kind: Kind
    var term: ValueTerm?
    /// The declared type's element (`Note` for `[Note]`, `Note?`), and whether it is a
    /// collection: a relationship holds objects of its object's context.
    var declaredType: String?
    var declaredCollection = false
    var place: SourcePlace
}

/// A call of a project function with arguments, for the stores of its parameters.
struct CallInput: Sendable {
    var name: String
    var arguments: [TermArgument]
    /// A call none of whose arguments holds anything followed, kept without them (most
    /// calls): what it stores is unknown.
    var isOpaque = false
}

/// A method or computed property of `extension NSManagedObjectContext`, with the
/// members of `self` it uses straight in its body (not inside a closure that runs
/// elsewhere): what it does to its receiver, for the summary that makes
/// `disableEncryptionAtRest()`, which sets `self.encryptionKeys` (a `userInfo` entry), a
/// use of its receiver too.
struct ExtensionMemberInput: Sendable {
    var member: String
    var isProperty: Bool
    var uses: [String]
    var place: SourcePlace
}

/// What the analysis keeps of one file (never its tree).
struct DataflowFacts: Sendable {
    var extensionMembers: [ExtensionMemberInput] = []
    var functions: [FunctionInput] = []
    var properties: [PropertyInput] = []
    var stores: [StoreInput] = []
    var calls: [CallInput] = []
    /// Names two or more other targets declare (`TargetViews`): unknown here, whatever
    /// their declarations say.
    var ambiguousNames: Set<String> = []
}

extension ValueTerm {
    /// The term for another target that declares `names`: what names one of them reaches
    /// that target's own declaration, which this one does not see: unknown.
    func hiding(_ names: Set<String>) -> ValueTerm {
        switch self {
        case .value, .parameter, .unknown: return self
        case .property(let name): return names.contains(name) ? .unknown : self
        case .call(let name, let receiver, let arguments):
            guard !names.contains(name) else { return .unknown }
            return .call(name, receiver: receiver?.hiding(names), arguments: arguments.map { TermArgument(label: $0.label, term: $0.term.hiding(names)) })
        case .objects(let base, let collection): return .objects(of: base.hiding(names), collection: collection)
        case .member(let base, let name): return names.contains(name) ? .unknown : .member(base.hiding(names), name)
        case .element(let base): return .element(base.hiding(names))
        case .madeContext(let site, let queue): return .madeContext(site: site, queue: queue.hiding(names))
        case .join(let a, let b): return .join(a.hiding(names), b.hiding(names))
        }
    }
}

extension DataflowFacts {
    /// These facts without what they tell of `names` (`FileFacts.hiding`).
    func hiding(_ names: Set<String>) -> DataflowFacts {
        guard !names.isEmpty else { return self }
        var facts = DataflowFacts(ambiguousNames: ambiguousNames)
        facts.extensionMembers = extensionMembers.filter { !names.contains($0.member) }
        var places: [Int?] = []
        for function in functions {
            places.append(names.contains(function.name) ? nil : facts.functions.count)
            guard !names.contains(function.name) else { continue }
            var kept = function
            kept.result = function.result?.hiding(names)
            facts.functions.append(kept)
        }
        facts.properties = properties.filter { !names.contains($0.name) }.map { property in
            var property = property
            property.term = property.term?.hiding(names)
            return property
        }
        facts.stores = stores.compactMap { store in
            guard !names.contains(store.property) else { return nil }
            var store = store
            store.term = store.term.hiding(names)
            store.function = store.function.flatMap { places.indices.contains($0) ? places[$0] : nil }
            return store
        }
        facts.calls = calls.filter { !names.contains($0.name) }.map { call in
            CallInput(name: call.name, arguments: call.arguments.map { TermArgument(label: $0.label, term: $0.term.hiding(names)) }, isOpaque: call.isOpaque)
        }
        return facts
    }
}
