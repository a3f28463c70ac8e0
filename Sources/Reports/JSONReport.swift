public import Foundation
public import ReplayModel
import ReportFormats

/// The replay as JSON, in the versioned schema of docs/report-format.md.
public enum JSONReport {
    public static func render(_ report: ReplayReport) throws -> Data {
        let encoder = encoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        var data = try encoder.encode(report)
        data.append(0x0A)
        return data
    }

    /// How every JSON file of ctxdebug is written: pretty-printed, keys sorted, slashes
    /// as they are.
    public static func encoder() -> JSONEncoder {
        ReportJSON.encoder()
    }

    public static func decode(_ data: Data) throws -> ReplayReport {
        try JSONDecoder().decode(ReplayReport.self, from: data)
    }
}
