/// Why the port could not read an input or write an output: the file, where, what
/// went wrong and what to do (as swift-nio's `FileSystemError`: a code and a message).
public struct PortError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable { case unreadable, badModel, unwritable, unparsable }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// A source or model that cannot be read.
        public static let unreadable = Code(.unreadable)
        /// A model whose XML is not a Core Data model.
        public static let badModel = Code(.badModel)
        /// An output that cannot be written.
        public static let unwritable = Code(.unwritable)
        /// A source that is not Swift the parser can read.
        public static let unparsable = Code(.unparsable)
        public var description: String { base.rawValue }
    }

    public var code: Code
    public var message: String
    public var path: String
    public var line: Int?

    public init(_ code: Code, _ message: String, path: String, line: Int? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.line = line
    }

    public var description: String { "\(path)\(line.map { ":\($0)" } ?? ""): \(message)" }
}

/// A construct the port cannot carry over to Linux, at the user's file, line and
/// column, with what to write instead. Printed in the compiler's shape.
public struct PortDiagnostic: Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var line: Int
    public var column: Int
    public var message: String

    public init(path: String, line: Int, column: Int, message: String) {
        self.path = path
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String { "\(path):\(line):\(column): error: \(message)" }
}
