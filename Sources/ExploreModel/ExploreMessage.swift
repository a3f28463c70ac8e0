public import Foundation

/// One line a child of `ctxdebug explore` sends its parent over the socket named by
/// `CTXDEBUG_EXPLORE_SOCKET` (docs/explore.md, "CLI ↔ child protocol"): JSON, one object
/// a line. The runtime's child side encodes it, the parent decodes it, and the tests'
/// fake child encodes it too: one type, so the three cannot drift.
///
/// The parent answers a `decision`, and only a decision, with one `SchedulingAnswer`
/// line.
public enum ExploreMessage: Sendable, Equatable {
    /// The first line of a connection: the protocol it speaks and the process.
    case hello(version: Int, pid: Int32)
    /// A scheduling point with a choice: the parent answers with who runs next.
    case decision(SchedulingDecision)
    /// The scheduler ended the run (a deadlock, a hang, an uncontrolled call, a
    /// replay's divergence).
    case failure(ScheduleFailure)
    /// At exit, when `CTXDEBUG_EXPLORE_SITES=1`: the source site of each decision this
    /// connection took, in order (nil where none is known).
    case sites([String?])
    /// Uncontrolled work ran (`--allow-uncontrolled`): a replay may differ.
    case unreproducible
    /// The connection's last line.
    case end

    /// The protocol's version, sent in `hello`. 2: every line each way is JSON (1
    /// answered with bare text).
    public static let version = 2

    /// The message as one line: its JSON (keys sorted) and a '\n'.
    public func line() throws -> Data {
        // A decision is the child's one message per scheduling point: written directly,
        // the same bytes as the encoder's (ExploreMessage+Line.swift).
        if case .decision(let decision) = self, let line = DecisionLine.encode(decision) { return line }
        return try ExploreMessage.line(self)
    }

    /// The message of one line (without its '\n').
    public init(line: Data) throws {
        self = try JSONDecoder().decode(ExploreMessage.self, from: line)
    }

    static func line(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(value)
        data.append(0x0A)
        return data
    }
}

extension SchedulingDecision {
    /// `ExploreMessage.decision(self).line()`'s bytes, for the child's side that writes
    /// one at every scheduling point (without making a `Data`).
    package func lineBytes() throws -> [UInt8] {
        if let bytes = DecisionLine.bytes(self) { return bytes }
        return try Array(ExploreMessage.line(ExploreMessage.decision(self)))
    }
}

extension SchedulingAnswer {
    /// The answer of one line's bytes (without its '\n').
    package init(lineBytes: UnsafeRawBufferPointer) throws {
        if let index = DecisionLine.decodeRun(lineBytes) {
            self = .run(index)
            return
        }
        self = try JSONDecoder().decode(SchedulingAnswer.self, from: Data(lineBytes))
    }

    /// The answer as one line: its JSON and a '\n'.
    public func line() throws -> Data { try ExploreMessage.line(self) }

    /// The answer of one line (without its '\n').
    public init(line: Data) throws {
        if let index = DecisionLine.decodeRun(line) {
            self = .run(index)
            return
        }
        self = try JSONDecoder().decode(SchedulingAnswer.self, from: line)
    }
}

// On the wire: `{"hello":2,"pid":…}`; a decision's own keys (`step`, `actor`, `point`,
// `context`, `enabled`, `defaultIndex`, `candidates`); `{"failure":{…}}`;
// `{"sites":[…]}`; `{"reproducible":false}`; `{"end":true}`. Which keys are there says
// which message it is.
extension ExploreMessage: Codable {
    enum CodingKeys: String, CodingKey {
        case hello, pid, enabled, failure, sites, reproducible, end
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.enabled) {
            self = .decision(try SchedulingDecision(from: decoder))
        } else if let version = try container.decodeIfPresent(Int.self, forKey: .hello) {
            self = .hello(version: version, pid: try container.decodeIfPresent(Int32.self, forKey: .pid) ?? 0)
        } else if let failure = try container.decodeIfPresent(ScheduleFailure.self, forKey: .failure) {
            self = .failure(failure)
        } else if let sites = try container.decodeIfPresent([String?].self, forKey: .sites) {
            self = .sites(sites)
        } else if try container.decodeIfPresent(Bool.self, forKey: .reproducible) == false {
            self = .unreproducible
        } else if try container.decodeIfPresent(Bool.self, forKey: .end) == true {
            self = .end
        } else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "not a message of ctxdebug explore's protocol: no hello, enabled, failure, sites, reproducible or end key"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if case .decision(let decision) = self { return try decision.encode(to: encoder) }
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .hello(let version, let pid):
            try container.encode(version, forKey: .hello)
            try container.encode(pid, forKey: .pid)
        case .decision:
            break  // above
        case .failure(let failure):
            try container.encode(failure, forKey: .failure)
        case .sites(let sites):
            try container.encode(sites, forKey: .sites)
        case .unreproducible:
            try container.encode(false, forKey: .reproducible)
        case .end:
            try container.encode(true, forKey: .end)
        }
    }
}
