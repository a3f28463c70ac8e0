public import Foundation

/// How every JSON file of ctxdebug is written: pretty-printed, keys sorted, slashes as
/// they are (the SARIF log, the reports of `check`, `replay` and `journal`).
public enum ReportJSON {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
