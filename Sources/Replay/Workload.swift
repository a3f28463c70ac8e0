public import Foundation

/// A timeline of user actions to replay: the built-in scenarios are workloads, and
/// `--workload FILE` reads one from JSON (docs/workload-format.md).
///
/// Steps run in order. Main-queue actions are posted to the main queue and
/// background actions started; neither is waited for unless `"wait": true`, so
/// `pause` is what spaces them. The frame clock scrolls the list all along.
public struct Workload: Sendable {
    public static let currentVersion = 1

    public enum Stack: String, Sendable, CaseIterable {
        /// viewContext and background contexts on the coordinator (the final app).
        case standard
        /// root private context <- main context <- background context.
        case nested
    }

    public enum Queue: String, Sendable, CaseIterable {
        case main, background
    }

    public enum Action: Sendable {
        /// Sets the scrolling speed of the list, in rows per second (0 stops).
        case scroll(rowsPerSecond: Double)
        /// Waits before the next step.
        case pause(seconds: Double)
        /// Opens the entry at this row of the list in a child scratchpad.
        case open(row: Int)
        /// Edits the open entry.
        case edit(rating: Int16?, location: String?, height: String?)
        /// Saves the child into the view context, and the view context to the store.
        case save
        /// Throws the child's changes away.
        case cancel
        /// Adds a new entry in a child scratchpad (then `save` or `cancel`).
        case add(location: String?, rating: Int16?)
        /// Exports the journal to CSV on the main queue or a background context.
        case export(queue: Queue, wait: Bool)
        /// Runs the expensive search on a background context.
        case search(wait: Bool)
        /// Background sync: bursts of inserts and updates, each saved and merged.
        case sync(bursts: Int, inserts: Int, updates: Int, interval: Double, wait: Bool)

        public var name: String {
            switch self {
            case .scroll: "scroll"
            case .pause: "pause"
            case .open: "open"
            case .edit: "edit"
            case .save: "save"
            case .cancel: "cancel"
            case .add: "add"
            case .export: "export"
            case .search: "search"
            case .sync: "sync"
            }
        }
    }

    public struct Step: Sendable {
        public var action: Action
        /// Where the step is in its file (1-based; 0 for built-in workloads).
        public var line: Int
        public var column: Int

        public init(_ action: Action, line: Int = 0, column: Int = 0) {
            self.action = action
            self.line = line
            self.column = column
        }
    }

    public var name: String
    public var stack: Stack
    public var steps: [Step]

    public init(name: String, stack: Stack = .standard, steps: [Step]) {
        self.name = name
        self.stack = stack
        self.steps = steps
    }

    /// Total of the pauses: how long the timeline itself takes.
    public var timelineSeconds: Double {
        steps.reduce(0) { if case .pause(let s) = $1.action { $0 + s } else { $0 } }
    }

    // MARK: Built-in scenarios

    /// The built-in scenario `name` as a workload.
    public static func builtIn(_ name: ScenarioName) -> Workload {
        let scroll = Step(.scroll(rowsPerSecond: 90))
        switch name {
        case .baseline:
            return Workload(name: name.rawValue, steps: [scroll])
        case .exportMain:
            return Workload(name: name.rawValue, steps: [scroll, Step(.pause(seconds: 0.5)), Step(.export(queue: .main, wait: true))])
        case .exportBackground:
            return Workload(name: name.rawValue, steps: [scroll, Step(.pause(seconds: 0.5)), Step(.export(queue: .background, wait: true))])
        case .searchBackground:
            return Workload(
                name: name.rawValue,
                steps: [scroll, Step(.pause(seconds: 0.3)), Step(.search(wait: true)), Step(.pause(seconds: 0.4)), Step(.search(wait: true)),
                        Step(.pause(seconds: 0.4)), Step(.search(wait: true))])
        case .syncBackground:
            return Workload(
                name: name.rawValue,
                steps: [scroll, Step(.pause(seconds: 0.3)), Step(.sync(bursts: 8, inserts: 25, updates: 25, interval: 0.2, wait: true))])
        case .nestedStack:
            return Workload(
                name: name.rawValue, stack: .nested,
                steps: [scroll, Step(.pause(seconds: 0.3)), Step(.sync(bursts: 4, inserts: 250, updates: 50, interval: 0.3, wait: true)),
                        Step(.search(wait: true)), Step(.open(row: 2)), Step(.edit(rating: 5, location: nil, height: nil)), Step(.save)])
        case .editChild:
            var steps = [scroll]
            for i in 0..<4 {
                steps += [Step(.pause(seconds: 0.25)), Step(.open(row: i * 3)), Step(.edit(rating: Int16(i % 5 + 1), location: nil, height: "4.5"))]
                steps.append(Step(i % 2 == 0 ? .save : .cancel))
            }
            steps += [Step(.pause(seconds: 0.25)), Step(.add(location: "Rincon", rating: 4)), Step(.save)]
            return Workload(name: name.rawValue, steps: steps)
        }
    }

    // MARK: Reading a file

    /// Reads a workload file. Throws a `ReplayError` (`.badInput`) naming the
    /// file, line and column of the first problem.
    public static func load(contentsOf url: URL) throws -> Workload {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ReplayError(.badInput, "Cannot read the workload file \(url.path): \((error as NSError).localizedDescription). Check the path.")
        }
        return try parse(Array(data), fileName: url.path)
    }

    /// Parses a workload from JSON bytes.
    public static func parse(_ bytes: [UInt8], fileName: String = "workload") throws -> Workload {
        func fail(_ line: Int, _ column: Int, _ message: String) -> ReplayError {
            ReplayError(.badInput, "\(fileName):\(line):\(column): \(message). See docs/workload-format.md.")
        }
        var parser = JSONParser(bytes: bytes)
        let root: JSONValue
        do {
            root = try parser.parseDocument()
        } catch let e as JSONParser.Failure {
            throw fail(e.line, e.column, e.message)
        }
        guard case .object(let top) = root.kind else {
            throw fail(root.line, root.column, "the workload must be a JSON object with \"version\" and \"timeline\"")
        }
        let known: Set<String> = ["version", "name", "stack", "timeline", "description"]
        for (key, value) in top where !known.contains(key) {
            throw fail(value.line, value.column, "unknown key \"\(key)\" at the top level; expected one of \(known.sorted().joined(separator: ", "))")
        }
        guard let version = top["version"] else { throw fail(root.line, root.column, "missing \"version\" (use 1)") }
        guard case .number(let v) = version.kind, v == Double(currentVersion) else {
            throw fail(version.line, version.column, "unsupported \"version\"; this ctxdebug reads version \(currentVersion)")
        }
        var name = fileName
        if let n = top["name"] {
            guard case .string(let s) = n.kind else { throw fail(n.line, n.column, "\"name\" must be a string") }
            name = s
        }
        var stack = Stack.standard
        if let s = top["stack"] {
            guard case .string(let raw) = s.kind, let parsed = Stack(rawValue: raw) else {
                throw fail(s.line, s.column, "\"stack\" must be one of \(Stack.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
            }
            stack = parsed
        }
        guard let timeline = top["timeline"] else { throw fail(root.line, root.column, "missing \"timeline\" (an array of steps)") }
        guard case .array(let items) = timeline.kind else { throw fail(timeline.line, timeline.column, "\"timeline\" must be an array of steps") }
        var steps: [Step] = []
        for item in items {
            steps.append(try parseStep(item, fail: fail))
        }
        return Workload(name: name, stack: stack, steps: steps)
    }

    private static func parseStep(_ item: JSONValue, fail: @escaping (Int, Int, String) -> ReplayError) throws -> Step {
        guard case .object(let fields) = item.kind else {
            throw fail(item.line, item.column, "each step must be an object like {\"action\": \"scroll\", \"rowsPerSecond\": 90}")
        }
        guard let actionValue = fields["action"] else { throw fail(item.line, item.column, "the step has no \"action\"") }
        guard case .string(let action) = actionValue.kind else {
            throw fail(actionValue.line, actionValue.column, "\"action\" must be a string")
        }
        let actions = ["scroll", "pause", "open", "edit", "save", "cancel", "add", "export", "search", "sync"]
        var f = StepFields(item: item, fields: fields, action: action, fail: fail)
        let parsed: Action
        switch action {
        case "scroll": parsed = .scroll(rowsPerSecond: try f.number("rowsPerSecond", max: 100_000))
        case "pause": parsed = .pause(seconds: try f.number("seconds", max: 3_600))
        case "open": parsed = .open(row: try f.integer("row", max: Int.max / 2))
        case "edit": parsed = .edit(rating: try f.rating(), location: try f.string("location"), height: try f.string("height"))
        case "save": parsed = .save
        case "cancel": parsed = .cancel
        case "add":
            let rating = try f.rating()
            parsed = .add(location: try f.string("location"), rating: rating)
        case "export": parsed = .export(queue: try f.queue(), wait: try f.bool("wait", default: false))
        case "search": parsed = .search(wait: try f.bool("wait", default: false))
        case "sync":
            parsed = .sync(
                bursts: try f.integer("bursts", default: 1, min: 1, max: 10_000), inserts: try f.integer("inserts", default: 10),
                updates: try f.integer("updates", default: 10, max: 10_000), interval: try f.number("interval", default: 0.2, max: 60),
                wait: try f.bool("wait", default: false))
        default:
            throw fail(actionValue.line, actionValue.column, "unknown action \"\(action)\"; expected one of \(actions.joined(separator: ", "))")
        }
        for (key, value) in fields where !f.allowed.contains(key) {
            throw fail(value.line, value.column, "\"\(action)\" has no field \"\(key)\"")
        }
        return Step(parsed, line: item.line, column: item.column)
    }

    /// The fields of one step, read by type with their checks; each key read is allowed,
    /// and a field no reader asked for is an error.
    private struct StepFields {
        let item: JSONValue
        let fields: [String: JSONValue]
        let action: String
        let fail: (Int, Int, String) -> ReplayError
        var allowed: Set<String> = ["action"]

        init(item: JSONValue, fields: [String: JSONValue], action: String, fail: @escaping (Int, Int, String) -> ReplayError) {
            self.item = item
            self.fields = fields
            self.action = action
            self.fail = fail
        }

        mutating func number(_ key: String, default d: Double? = nil, min: Double = 0, max: Double = .greatestFiniteMagnitude) throws -> Double {
            allowed.insert(key)
            guard let v = fields[key] else {
                if let d { return d }
                throw fail(item.line, item.column, "\"\(action)\" needs \"\(key)\"")
            }
            guard case .number(let x) = v.kind else { throw fail(v.line, v.column, "\"\(key)\" must be a number") }
            guard x >= min && x <= max else { throw fail(v.line, v.column, "\"\(key)\" must be between \(min) and \(max)") }
            return x
        }

        mutating func integer(_ key: String, default d: Int? = nil, min: Int = 0, max: Int = 1_000_000) throws -> Int {
            let x = try number(key, default: d.map(Double.init), min: Double(min), max: Double(max))
            guard x == x.rounded() else {
                let v = fields[key]!
                throw fail(v.line, v.column, "\"\(key)\" must be a whole number")
            }
            return Int(x)
        }

        /// `rating`, 0 to 5, when the step has one.
        mutating func rating() throws -> Int16? {
            fields["rating"] == nil ? nil : Int16(try integer("rating", min: 0, max: 5))
        }

        mutating func string(_ key: String) throws -> String? {
            allowed.insert(key)
            guard let v = fields[key] else { return nil }
            if case .null = v.kind { return nil }
            guard case .string(let s) = v.kind else { throw fail(v.line, v.column, "\"\(key)\" must be a string") }
            return s
        }

        mutating func bool(_ key: String, default d: Bool) throws -> Bool {
            allowed.insert(key)
            guard let v = fields[key] else { return d }
            guard case .bool(let b) = v.kind else { throw fail(v.line, v.column, "\"\(key)\" must be true or false") }
            return b
        }

        mutating func queue() throws -> Queue {
            guard let raw = try string("queue") else { return .background }
            guard let q = Queue(rawValue: raw) else {
                let v = fields["queue"]!
                throw fail(v.line, v.column, "\"queue\" must be \"main\" or \"background\"")
            }
            return q
        }
    }
}

// MARK: A small JSON parser that remembers where each value is

struct JSONValue {
    enum Kind {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSONValue])
        case object([String: JSONValue])
    }
    var kind: Kind
    var line: Int
    var column: Int
}

struct JSONParser {
    struct Failure: Error {
        var line: Int
        var column: Int
        var message: String
    }

    let bytes: [UInt8]
    var index = 0
    var line = 1
    var lineStart = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3; lineStart = 3 }
    }

    var column: Int { index - lineStart + 1 }

    func failure(_ message: String) -> Failure { Failure(line: line, column: column, message: message) }

    mutating func parseDocument() throws -> JSONValue {
        skipSpace()
        if index >= bytes.count { throw failure("the file is empty; expected a JSON object") }
        let value = try parseValue(depth: 0)
        skipSpace()
        if index < bytes.count { throw failure("unexpected \(describe(bytes[index])) after the end of the JSON value") }
        return value
    }

    mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D: index += 1
            case 0x0A:
                index += 1
                line += 1
                lineStart = index
            default: return
            }
        }
    }

    func describe(_ b: UInt8) -> String {
        b >= 0x20 && b < 0x7F ? "'\(Character(UnicodeScalar(b)))'" : String(format: "byte 0x%02X", b)
    }

    mutating func parseValue(depth: Int) throws -> JSONValue {
        guard depth < 64 else { throw failure("nesting is too deep") }
        guard index < bytes.count else { throw failure("unexpected end of file; expected a value") }
        let l = line, c = column
        switch bytes[index] {
        case UInt8(ascii: "{"):
            return JSONValue(kind: .object(try parseObject(depth: depth)), line: l, column: c)
        case UInt8(ascii: "["):
            return JSONValue(kind: .array(try parseArray(depth: depth)), line: l, column: c)
        case UInt8(ascii: "\""):
            return JSONValue(kind: .string(try parseString()), line: l, column: c)
        case UInt8(ascii: "t"):
            try literal("true")
            return JSONValue(kind: .bool(true), line: l, column: c)
        case UInt8(ascii: "f"):
            try literal("false")
            return JSONValue(kind: .bool(false), line: l, column: c)
        case UInt8(ascii: "n"):
            try literal("null")
            return JSONValue(kind: .null, line: l, column: c)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONValue(kind: .number(try parseNumber()), line: l, column: c)
        default:
            throw failure("unexpected \(describe(bytes[index])); expected a value (object, array, string, number, true, false or null)")
        }
    }

    /// The members of the object at `index` (its `{`), each key once.
    mutating func parseObject(depth: Int) throws -> [String: JSONValue] {
        index += 1
        var members: [String: JSONValue] = [:]
        skipSpace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            return members
        }
        while true {
            skipSpace()
            guard index < bytes.count else { throw failure("unexpected end of file inside an object; expected '}'") }
            guard bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a quoted key, found \(describe(bytes[index]))") }
            let keyLine = line, keyColumn = column
            let key = try parseString()
            if members[key] != nil { throw Failure(line: keyLine, column: keyColumn, message: "duplicate key \"\(key)\"") }
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw failure(index < bytes.count ? "expected ':' after the key, found \(describe(bytes[index]))" : "unexpected end of file; expected ':'")
            }
            index += 1
            skipSpace()
            members[key] = try parseValue(depth: depth + 1)
            skipSpace()
            guard index < bytes.count else { throw failure("unexpected end of file inside an object; expected ',' or '}'") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return members }
            throw failure("expected ',' or '}' after an object member, found \(describe(bytes[index]))")
        }
    }

    /// The elements of the array at `index` (its `[`).
    mutating func parseArray(depth: Int) throws -> [JSONValue] {
        index += 1
        var items: [JSONValue] = []
        skipSpace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            return items
        }
        while true {
            skipSpace()
            items.append(try parseValue(depth: depth + 1))
            skipSpace()
            guard index < bytes.count else { throw failure("unexpected end of file inside an array; expected ',' or ']'") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return items }
            throw failure("expected ',' or ']' after an array element, found \(describe(bytes[index]))")
        }
    }

    mutating func literal(_ word: String) throws {
        let w = Array(word.utf8)
        guard index + w.count <= bytes.count, Array(bytes[index..<(index + w.count)]) == w else {
            throw failure("invalid literal; expected \(word)")
        }
        index += w.count
    }

    mutating func parseNumber() throws -> Double {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits() -> Int {
            let s = index
            while index < bytes.count && bytes[index] >= 0x30 && bytes[index] <= 0x39 { index += 1 }
            return index - s
        }
        guard digits() > 0 else { throw failure("invalid number") }
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw failure("invalid number: expected digits after '.'") }
        }
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) { index += 1 }
            guard digits() > 0 else { throw failure("invalid number: expected digits in the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text) else { throw failure("invalid number \(text)") }
        return value
    }

    mutating func parseString() throws -> String {
        index += 1  // the opening quote
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else { throw failure("unexpected end of file inside a string; expected '\"'") }
            let b = bytes[index]
            if b == UInt8(ascii: "\"") { index += 1; break }
            if b == 0x0A || b == 0x0D { throw failure("a string cannot span lines; close it with '\"'") }
            if b < 0x20 { throw failure("control character in a string; escape it") }
            if b == UInt8(ascii: "\\") {
                index += 1
                guard index < bytes.count else { throw failure("unexpected end of file in an escape") }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    guard index + 4 <= bytes.count, let code = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16) else {
                        throw failure("invalid \\u escape")
                    }
                    index += 4
                    let scalar = UnicodeScalar(code) ?? "\u{FFFD}"
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    index -= 1
                    throw failure("invalid escape \\\(Character(UnicodeScalar(e)))")
                }
                continue
            }
            out.append(b)
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
