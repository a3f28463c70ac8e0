/// The one escaper of text that reports write into HTML, XML and hand-written JSON
/// (the HTML report, JUnit, the Chrome trace). Codable JSON (SARIF, the JSON reports)
/// is escaped by `JSONEncoder`.
public enum Escape {
    /// HTML content and attribute values: `& < > " '` become entities (`'` as `&#39;`,
    /// which HTML 4 knows too).
    public static func html(_ text: String) -> String {
        markup(text, apostrophe: "&#39;", dropsWhatXMLCannotHold: false)
    }

    /// XML 1.0 text and attribute values: `& < > " '` become entities (`'` as `&apos;`),
    /// and the characters XML 1.0 cannot hold at all (controls other than tab, newline
    /// and carriage return; U+FFFE, U+FFFF) are dropped, so a reader never refuses the file.
    public static func xml(_ text: String) -> String {
        markup(text, apostrophe: "&apos;", dropsWhatXMLCannotHold: true)
    }

    /// A JSON string literal, quotes included: `"` and `\` escaped, newline, carriage
    /// return and tab as `\n \r \t`, other controls as `\u00XX`; everything else as is.
    public static func jsonString(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let control where control.value < 0x20: out += "\\u00" + hexByte(control.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    private static func markup(_ text: String, apostrophe: String, dropsWhatXMLCannotHold: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += apostrophe
            default:
                if dropsWhatXMLCannotHold && !isXMLCharacter(scalar) { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// XML 1.0's `Char` production (surrogates are never `Unicode.Scalar`s).
    static func isXMLCharacter(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return v == 0x9 || v == 0xA || v == 0xD || (v >= 0x20 && v != 0xFFFE && v != 0xFFFF)
    }

    private static func hexByte(_ value: UInt32) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(value >> 4) & 0xf], digits[Int(value) & 0xf]])
    }
}
