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
