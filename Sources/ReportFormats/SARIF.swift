public import Foundation

/// SARIF 2.1.0 (OASIS Static Analysis Results Interchange Format): the part of it that
/// `ctxdebug check` and `ctxdebug lint` write, as Codable types named after the
/// standard's objects. A log holds one run of ctxdebug: the tool and its rules, the
/// source root as `%SRCROOT%` (results give paths relative to it), the invocation and
/// the results. GitHub code scanning, sarif-tools and the baseline of `ctxdebug lint`
/// read it.
public enum SARIF {
    public static let schema = "https://json.schemastore.org/sarif-2.1.0.json"
    /// The `uriBaseId` of paths relative to the source root.
    public static let rootBaseID = "%SRCROOT%"
    /// The keys of ctxdebug's `partialFingerprints`: the stack of a violation
    /// (`ctxdebug check`), and a finding (`ctxdebug lint`, which its baseline matches on).
    public static let stackFingerprintKey = "ctxdebugStack/v1"
    public static let lintFingerprintKey = "ctxdebugLint/v1"

    public struct Log: Codable, Sendable, Equatable {
        public var schema: String
        public var version: String
        public var runs: [Run]

        enum CodingKeys: String, CodingKey {
            case schema = "$schema", version, runs
        }

        /// A log of one run of the tool named `ctxdebug`, with the source root `root`
        /// as `%SRCROOT%`.
        public init(
            rules: [ReportingDescriptor], results: [Result], root: String, commandLine: String, exitStatus: Int32,
            informationURI: String?, toolVersion: String? = nil, notifications: [Notification]? = nil
        ) {
            let rootURI = URL(fileURLWithPath: root, isDirectory: true).absoluteString
            schema = SARIF.schema
            version = "2.1.0"
            runs = [
                Run(
                    tool: Tool(
                        driver: ToolComponent(
                            name: "ctxdebug", informationUri: informationURI, version: toolVersion, semanticVersion: toolVersion, rules: rules)),
                    originalUriBaseIds: [rootBaseID: ArtifactLocation(uri: rootURI.hasSuffix("/") ? rootURI : rootURI + "/")],
                    invocations: [
                        Invocation(
                            commandLine: commandLine, exitCode: Int(exitStatus), executionSuccessful: true,
                            toolExecutionNotifications: notifications)
                    ],
                    results: results)
            ]
        }

        /// Pretty-printed JSON with sorted keys and unescaped slashes.
        public func encoded() throws -> Data {
            try ReportJSON.encoder().encode(self)
        }
    }

    public struct Run: Codable, Sendable, Equatable {
        public var tool: Tool
        public var originalUriBaseIds: [String: ArtifactLocation]
        public var invocations: [Invocation]
        public var results: [Result]
    }

    public struct Tool: Codable, Sendable, Equatable {
        public var driver: ToolComponent
    }

    public struct ToolComponent: Codable, Sendable, Equatable {
        public var name: String
        /// Left out when there is no page to point at (never an invented URL).
        public var informationUri: String?
        public var version: String?
        public var semanticVersion: String?
        public var rules: [ReportingDescriptor]
    }

    /// A rule.
    public struct ReportingDescriptor: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var shortDescription: Message
        public var fullDescription: Message
        public var help: Message
        public var helpUri: String?
        public var defaultConfiguration: Configuration
        public var properties: [String: PropertyValue]?

        public init(
            id: String, name: String, short: String, full: String, help: String, helpUri: String? = nil, level: String,
            tags: [String]
        ) {
            self.id = id
            self.name = name
            shortDescription = Message(short)
            fullDescription = Message(full)
            self.help = Message(help)
            self.helpUri = helpUri
            defaultConfiguration = Configuration(level: level)
            properties = ["tags": .strings(tags)]
        }
    }

    public struct Configuration: Codable, Sendable, Equatable {
        public var level: String
    }

    public struct Message: Codable, Sendable, Equatable {
        public var text: String
        public init(_ text: String) { self.text = text }
    }

    public struct Invocation: Codable, Sendable, Equatable {
        public var commandLine: String
        public var exitCode: Int
        public var executionSuccessful: Bool
        /// What the tool has to say about the run itself (a file it skipped).
        public var toolExecutionNotifications: [Notification]?
    }

    /// A tool notification: "this file could not be parsed; skipped".
    public struct Notification: Codable, Sendable, Equatable {
        public var level: String
        public var message: Message
        public var locations: [Location]?

        public init(level: String, message: String, locations: [Location]? = nil) {
            self.level = level
            self.message = Message(message)
            self.locations = locations
        }
    }

    public struct Result: Codable, Sendable, Equatable {
        public var ruleId: String
        public var ruleIndex: Int
        public var level: String
        public var message: Message
        public var locations: [Location]?
        public var partialFingerprints: [String: String]
        public var properties: [String: PropertyValue]?
        public var codeFlows: [CodeFlow]?

        public init(
            ruleId: String, ruleIndex: Int, level: String, message: String, locations: [Location]? = nil,
            partialFingerprints: [String: String], properties: [String: PropertyValue]? = nil, codeFlows: [CodeFlow]? = nil
        ) {
            self.ruleId = ruleId
            self.ruleIndex = ruleIndex
            self.level = level
            self.message = Message(message)
            self.locations = locations
            self.partialFingerprints = partialFingerprints
            self.properties = properties
            self.codeFlows = codeFlows
        }
    }

    public struct Location: Codable, Sendable, Equatable {
        public var message: Message?
        public var physicalLocation: PhysicalLocation?

        public init(message: String? = nil, physicalLocation: PhysicalLocation?) {
            self.message = message.map(Message.init)
            self.physicalLocation = physicalLocation
        }
    }

    public struct PhysicalLocation: Codable, Sendable, Equatable {
        public var artifactLocation: ArtifactLocation
        /// Nil for a whole file.
        public var region: Region?

        public init(artifactLocation: ArtifactLocation, region: Region?) {
            self.artifactLocation = artifactLocation
            self.region = region
        }
    }

    public struct ArtifactLocation: Codable, Sendable, Equatable {
        public var uri: String
        public var uriBaseId: String?

        public init(uri: String, uriBaseId: String? = nil) {
            self.uri = uri
            self.uriBaseId = uriBaseId
        }

        /// A file: relative to the source root as `%SRCROOT%`-based and percent-encoded,
        /// or absolute as a `file:` URI.
        public static func file(_ path: String, relativeToRoot: Bool) -> ArtifactLocation {
            relativeToRoot
                ? ArtifactLocation(uri: path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path, uriBaseId: rootBaseID)
                : ArtifactLocation(uri: URL(fileURLWithPath: path).absoluteString)
        }
    }

    public struct Region: Codable, Sendable, Equatable {
        public var startLine: Int
        public var startColumn: Int?
        public var snippet: Message?

        public init(startLine: Int, startColumn: Int? = nil, snippet: String? = nil) {
            self.startLine = startLine
            self.startColumn = startColumn
            self.snippet = snippet.map(Message.init)
        }
    }

    /// A path through the code; ctxdebug gives the stack of a violation as one thread flow.
    public struct CodeFlow: Codable, Sendable, Equatable {
        public var message: Message
        public var threadFlows: [ThreadFlow]

        public init(message: String, threadFlows: [ThreadFlow]) {
            self.message = Message(message)
            self.threadFlows = threadFlows
        }
    }

    public struct ThreadFlow: Codable, Sendable, Equatable {
        /// Names the thread (ctxdebug explore: the actor key, `q1`); left out when nil.
        public var id: String?
        /// What the thread is (ctxdebug explore: "q1 (background)"); left out when nil.
        public var message: Message?
        public var locations: [ThreadFlowLocation]
        public init(id: String? = nil, message: String? = nil, locations: [ThreadFlowLocation]) {
            self.id = id
            self.message = message.map(Message.init)
            self.locations = locations
        }
    }

    public struct ThreadFlowLocation: Codable, Sendable, Equatable {
        public var location: Location
        public var executionOrder: Int
        public init(location: Location, executionOrder: Int) {
            self.location = location
            self.executionOrder = executionOrder
        }
    }

    /// A value in a property bag: a number, a string or a list of strings (`tags`).
    public enum PropertyValue: Codable, Sendable, Equatable {
        case integer(Int)
        case string(String)
        case strings([String])

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let n = try? container.decode(Int.self) {
                self = .integer(n)
            } else if let s = try? container.decode(String.self) {
                self = .string(s)
            } else {
                self = .strings(try container.decode([String].self))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .integer(let n): try container.encode(n)
            case .string(let s): try container.encode(s)
            case .strings(let list): try container.encode(list)
            }
        }
    }

    /// FNV-1a, 64 bits, as hex: a fingerprint stable across runs and machines.
    public static func fingerprint(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

// Reading a log (the baseline of `ctxdebug lint`): the members that ctxdebug writes
// but a reader does not need may be missing, as in a log another tool or an older
// ctxdebug wrote. What is present must have its type.

extension SARIF.Log {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        schema = try container.decodeIfPresent(String.self, forKey: .schema) ?? SARIF.schema
        version = try container.decodeIfPresent(String.self, forKey: .version) ?? "2.1.0"
        runs = try container.decode([SARIF.Run].self, forKey: .runs)
    }
}

extension SARIF.Run {
    enum CodingKeys: String, CodingKey {
        case tool, originalUriBaseIds, invocations, results
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        tool =
            try container.decodeIfPresent(SARIF.Tool.self, forKey: .tool)
            ?? SARIF.Tool(driver: SARIF.ToolComponent(name: "", informationUri: nil, version: nil, semanticVersion: nil, rules: []))
        originalUriBaseIds = try container.decodeIfPresent([String: SARIF.ArtifactLocation].self, forKey: .originalUriBaseIds) ?? [:]
        invocations = try container.decodeIfPresent([SARIF.Invocation].self, forKey: .invocations) ?? []
        results = try container.decodeIfPresent([SARIF.Result].self, forKey: .results) ?? []
    }
}

extension SARIF.Result {
    enum CodingKeys: String, CodingKey {
        case ruleId, ruleIndex, level, message, locations, partialFingerprints, properties, codeFlows
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        ruleId = try container.decode(String.self, forKey: .ruleId)
        ruleIndex = try container.decodeIfPresent(Int.self, forKey: .ruleIndex) ?? 0
        level = try container.decodeIfPresent(String.self, forKey: .level) ?? "warning"
        message = try container.decodeIfPresent(SARIF.Message.self, forKey: .message) ?? SARIF.Message("")
        locations = try container.decodeIfPresent([SARIF.Location].self, forKey: .locations)
        partialFingerprints = try container.decodeIfPresent([String: String].self, forKey: .partialFingerprints) ?? [:]
        properties = try container.decodeIfPresent([String: SARIF.PropertyValue].self, forKey: .properties)
        codeFlows = try container.decodeIfPresent([SARIF.CodeFlow].self, forKey: .codeFlows)
    }
}
