/// What kind of misuse a violation is. Extensible: a struct wrapping a string, like
/// swift-nio's error codes, so that new kinds do not break code that switches on them.
///
///     if violation.kind == .wrongQueue { ... }
public struct ViolationKind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ name: String) { self.rawValue = name }
    public init(stringLiteral value: String) { self.rawValue = value }

    /// An access to something confined to a queue, from code not running on it.
    public static let wrongQueue = ViolationKind("wrong-queue")
    /// A perform block that did not run on its context's queue (level 2).
    public static let performOffQueue = ViolationKind("perform-off-queue")

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// One frame of a symbolicated stack. An inlined call gives several frames for one
/// address; `isInlined` marks all but the outermost.
public struct StackFrame: Sendable, Hashable, Codable {
    public var address: UInt
    /// The function, demangled when it is a Swift name.
    public var function: String?
    public var file: String?
    public var line: Int?
    public var column: Int?
    /// The path of the binary or shared library the address belongs to.
    public var module: String?
    public var isInlined: Bool
    /// One of a library's own frames above the user's code (a property wrapper, the
    /// getter it backs, the runtime's checks): printed stacks start below them.
    public var isRuntime: Bool

    public init(
        address: UInt, function: String? = nil, file: String? = nil, line: Int? = nil,
        column: Int? = nil, module: String? = nil, isInlined: Bool = false, isRuntime: Bool = false
    ) {
        self.address = address
        self.function = function
        self.file = file
        self.line = line
        self.column = column
        self.module = module
        self.isInlined = isInlined
        self.isRuntime = isRuntime
    }

    /// "file:line" or "file:line:column" when debug info gave a location.
    public var location: String? {
        guard let file, !file.isEmpty, let line, line > 0 else { return nil }
        if let column, column > 0 { return "\(file):\(line):\(column)" }
        return "\(file):\(line)"
    }

    /// The last path component of `module`.
    public var moduleName: String? {
        module.map { path in path.split(separator: "/").last.map(String.init) ?? path }
    }

    /// One line of a printed stack, without its number.
    public var formatted: String {
        var text = "0x" + hex(address) + " in " + (function ?? "???")
        if let location { text += " at " + location } else if let moduleName { text += " (" + moduleName + ")" }
        if isInlined { text += " [inlined]" }
        return text
    }

    enum CodingKeys: String, CodingKey {
        case address, function, file, line, column, module, isInlined = "inlined", isRuntime = "runtime"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .address)
        address = UInt(text.hasPrefix("0x") ? String(text.dropFirst(2)) : text, radix: 16) ?? 0
        function = try container.decodeIfPresent(String.self, forKey: .function)
        file = try container.decodeIfPresent(String.self, forKey: .file)
        line = try container.decodeIfPresent(Int.self, forKey: .line)
        column = try container.decodeIfPresent(Int.self, forKey: .column)
        module = try container.decodeIfPresent(String.self, forKey: .module)
        isInlined = try container.decodeIfPresent(Bool.self, forKey: .isInlined) ?? false
        isRuntime = try container.decodeIfPresent(Bool.self, forKey: .isRuntime) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("0x" + hex(address), forKey: .address)
        try container.encodeIfPresent(function, forKey: .function)
        try container.encodeIfPresent(file, forKey: .file)
        try container.encodeIfPresent(line, forKey: .line)
        try container.encodeIfPresent(column, forKey: .column)
        try container.encodeIfPresent(module, forKey: .module)
        if isInlined { try container.encode(true, forKey: .isInlined) }
        if isRuntime { try container.encode(true, forKey: .isRuntime) }
    }
}

/// One violation: what was touched, by whom, where, and how to fix it.
///
/// The stack is captured as addresses at the violation (cheap); `frames` holds the
/// symbolicated stack once `symbolicated()` has run (slow: it runs `llvm-symbolizer`).
/// The value lives in ViolationModel (Foundation only, so reports read it without the
/// runtime); ConcurrencyDebug re-exports it and adds the symbolication.
public struct Violation: Sendable, Hashable, Codable {
    public var kind: ViolationKind
    /// The access, in words: operation, entity, objectID, owning context and queue, fix hint.
    public var access: AccessDescription
    /// The one-line headline ("BUG DETECTED: ...").
    public var message: String
    /// The queue that made the access: the running context's queue, the main queue,
    /// the current dispatch queue's label, or "(no queue)".
    public var queueLabel: String
    /// The kernel thread id of the thread that made the access.
    public var threadID: UInt64
    /// The thread's name ("" when it has none).
    public var threadName: String
    /// Return addresses, innermost first, as captured (the checker's frames included).
    public var addresses: [UInt]
    /// The symbolicated stack with the checker's own frames dropped; the runtime's
    /// frames above the user's code are kept, marked `isRuntime`. Empty until
    /// symbolicated.
    public var frames: [StackFrame]
    /// How many times this violation (same kind, same stack) happened so far.
    public var count: Int

    public init(
        kind: ViolationKind, access: AccessDescription, message: String, queueLabel: String,
        threadID: UInt64, threadName: String, addresses: [UInt], frames: [StackFrame] = [], count: Int = 1
    ) {
        self.kind = kind
        self.access = access
        self.message = message
        self.queueLabel = queueLabel
        self.threadID = threadID
        self.threadName = threadName
        self.addresses = addresses
        self.frames = frames
        self.count = count
    }

    /// The stack from the user's code down: `frames` without the runtime's frames at
    /// the top, so the first is the line that made the access. What reports print.
    public var userFrames: [StackFrame] { Array(frames.drop { $0.isRuntime }) }

    /// "queue 'x' (thread 123 'name')"
    var toucher: String {
        var text = "queue '\(queueLabel)' (thread \(threadID)"
        if !threadName.isEmpty { text += " '\(threadName)'" }
        return text + ")"
    }

    /// The full report: the headline, the facts, the fix, and the stack as `frames`
    /// holds it (ConcurrencyDebug's `report` symbolicates first).
    public func formattedReport() -> String {
        let all = frames
        let frames = Array(all.drop { $0.isRuntime })
        var lines: [String] = []
        lines.append("ctxdebug: " + message)
        let a = access
        lines.append("  kind:      \(kind)")
        lines.append("  access:    \(a.summary)")
        if a.objectID != nil || a.entity != nil {
            var object = a.objectID ?? "(no objectID)"
            if let entity = a.entity { object += " (entity \(entity))" }
            lines.append("  object:    \(object)")
        }
        var owner = "queue '\(a.ownerQueueLabel)'"
        if let context = a.contextName { owner = "context '\(context)' on " + owner }
        lines.append("  owned by:  \(owner)")
        lines.append("  touched:   from \(toucher)")
        if count > 1 { lines.append("  count:     \(count) times") }
        lines.append("  fix:       \(a.fixHint)")
        lines.append("  stack:")
        if frames.isEmpty {
            lines.append("    (no stack)")
        } else if frames.count < all.count {
            let hidden = all.count - frames.count
            lines.append("    (\(hidden) frame\(hidden == 1 ? "" : "s") of the runtime above these left out; the JSON report keeps them)")
        }
        for (index, frame) in frames.enumerated() {
            lines.append("    #\(index) " + frame.formatted)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The headline for an access from the wrong queue.
    package static func headline(kind: ViolationKind, access a: AccessDescription, toucher: String) -> String {
        var subject = a.summary
        if let objectID = a.objectID { subject += " (\(objectID))" }
        let owner =
            a.contextName.map { "queue '\(a.ownerQueueLabel)' of context '\($0)'" } ?? "queue '\(a.ownerQueueLabel)'"
        if kind == .performOffQueue {
            return "BUG DETECTED: a perform block must run on \(owner), but it ran on \(toucher)."
        }
        return "BUG DETECTED: \(subject) must happen on \(owner), but it happened on \(toucher)."
    }
}

func hex(_ value: UInt) -> String {
    let digits = String(value, radix: 16)
    return digits.count >= 12 ? digits : String(repeating: "0", count: 12 - digits.count) + digits
}
