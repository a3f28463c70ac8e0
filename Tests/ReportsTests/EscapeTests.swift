import Foundation
import ReportFormats
import Testing

@Suite("The one escaper")
struct EscapeTests {
    @Test("HTML, XML and JSON escape the characters each format reserves")
    func escapes() {
        #expect(Escape.html("<a href=\"x\">'&'</a>") == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
        #expect(Escape.xml("it's\u{1}\u{FFFE}ok") == "it&apos;sok")
        #expect(Escape.jsonString("a\"b\\c\n\u{2}é") == "\"a\\\"b\\\\c\\n\\u0002é\"")
    }
}

@Suite("SARIF, read back")
struct SARIFReadingTests {
    @Test("A log without the members a reader does not need decodes; a wrong type does not")
    func lenientReading() throws {
        let minimal = #"{"runs":[{"results":[{"ruleId":"r","partialFingerprints":{"k":"v"}}]}]}"#
        let log = try JSONDecoder().decode(SARIF.Log.self, from: Data(minimal.utf8))
        #expect(log.runs.first?.results.first?.ruleId == "r")
        #expect(log.runs.first?.results.first?.partialFingerprints == ["k": "v"])
        #expect(log.version == "2.1.0")
        for bad in [#"{"runs":[{"results":[{"ruleId":1}]}]}"#, #"{"version":"2.1.0"}"#, "[1, 2]"] {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(SARIF.Log.self, from: Data(bad.utf8)) }
        }
    }
}
