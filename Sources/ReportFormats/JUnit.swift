/// A JUnit XML report of one test suite, the shape CI servers (Jenkins, GitLab,
/// junitparser) read: `ctxdebug check` gives a failing test case per distinct violation,
/// `ctxdebug lint` one per finding, and each one passing case when there is nothing.
public struct JUnitReport: Codable, Sendable, Equatable {
    /// The `name` of `<testsuites>`.
    public var name: String
    /// The `name` of the one `<testsuite>`.
    public var suiteName: String
    public var properties: [Property]
    public var cases: [TestCase]

    public struct Property: Codable, Sendable, Equatable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public struct TestCase: Codable, Sendable, Equatable {
        public var classname: String
        public var name: String
        /// Where it is (JUnit's pytest extension), when known.
        public var file: String?
        public var line: Int?
        /// nil: the case passed.
        public var failure: Failure?

        public init(classname: String, name: String, file: String? = nil, line: Int? = nil, failure: Failure? = nil) {
            self.classname = classname
            self.name = name
            self.file = file
            self.line = line
            self.failure = failure
        }
    }

    public struct Failure: Codable, Sendable, Equatable {
        public var type: String
        public var message: String
        /// The element's text: the details, stack included.
        public var text: String
        public init(type: String, message: String, text: String) {
            self.type = type
            self.message = message
            self.text = text
        }
    }

    public init(name: String, suiteName: String, properties: [Property] = [], cases: [TestCase]) {
        self.name = name
        self.suiteName = suiteName
        self.properties = properties
        self.cases = cases
    }

    public var failureCount: Int { cases.count { $0.failure != nil } }

    /// The XML document, UTF-8, two spaces a level; times are 0 (nothing is timed).
    public func xml() -> String {
        let escape = Escape.xml
        let counts = #"tests="\#(cases.count)" failures="\#(failureCount)" errors="0""#
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += #"<testsuites name="\#(escape(name))" \#(counts)>"# + "\n"
        xml += #"  <testsuite name="\#(escape(suiteName))" \#(counts) skipped="0" time="0">"# + "\n"
        if !properties.isEmpty {
            let list = properties.map { #"<property name="\#(escape($0.name))" value="\#(escape($0.value))"/>"# }.joined()
            xml += "    <properties>\(list)</properties>\n"
        }
        for testCase in cases {
            var attributes = #"classname="\#(escape(testCase.classname))" name="\#(escape(testCase.name))""#
            if let file = testCase.file { attributes += #" file="\#(escape(file))""# }
            if let line = testCase.line { attributes += #" line="\#(line)""# }
            attributes += #" time="0""#
            guard let failure = testCase.failure else {
                xml += "    <testcase \(attributes)/>\n"
                continue
            }
            xml += "    <testcase \(attributes)>\n"
            xml += #"      <failure type="\#(escape(failure.type))" message="\#(escape(failure.message))">"#
            xml += escape(failure.text) + "</failure>\n"
            xml += "    </testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }
}
