/// A small RFC 4180 parser for the tests: quoted fields, doubled quotes, CRLF or
/// LF record ends, commas and line breaks inside quotes.
enum CSVParser {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ text: String) throws -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var field = ""
        var inQuotes = false
        var fieldWasQuoted = false
        var chars = Array(text.unicodeScalars)[...]
        while let c = chars.popFirst() {
            if inQuotes {
                if c == "\"" {
                    if chars.first == "\"" {
                        chars.removeFirst()
                        field.unicodeScalars.append("\"")
                    } else {
                        inQuotes = false
                    }
                } else {
                    field.unicodeScalars.append(c)
                }
                continue
            }
            switch c {
            case "\"":
                guard field.isEmpty && !fieldWasQuoted else { throw Failure(description: "a quote inside an unquoted field") }
                inQuotes = true
                fieldWasQuoted = true
            case ",":
                record.append(field)
                field = ""
                fieldWasQuoted = false
            case "\r":
                guard chars.first == "\n" else { throw Failure(description: "CR without LF") }
            case "\n":
                record.append(field)
                records.append(record)
                record = []
                field = ""
                fieldWasQuoted = false
            default:
                guard !fieldWasQuoted else { throw Failure(description: "text after a closing quote") }
                field.unicodeScalars.append(c)
            }
        }
        if inQuotes { throw Failure(description: "unterminated quoted field") }
        if !field.isEmpty || !record.isEmpty {
            record.append(field)
            records.append(record)
        }
        return records
    }
}
