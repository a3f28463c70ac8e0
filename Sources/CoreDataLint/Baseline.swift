public import Foundation
public import ReportFormats

/// The findings of an earlier run, read from the SARIF file it wrote, so that a run
/// reports only what is new. A finding matches on its rule id, its path and its
/// fingerprint (rule, message and source line, no line number), so code that moves
/// stays baselined. Each baselined finding matches one finding of the new run.
public struct Baseline: Sendable {
    /// The key of the fingerprint in a SARIF result's `partialFingerprints`.
    public static let fingerprintKey = SARIF.lintFingerprintKey

    private var counts: [Key: Int] = [:]

    private struct Key: Hashable {
        var ruleID: String
        var path: String
        var fingerprint: String
    }

    public var count: Int { counts.values.reduce(0, +) }

    /// Reads a SARIF 2.1.0 log written by `ctxdebug lint --sarif`.
    public init(sarif data: Data, path: String) throws(LintError) {
        let log: SARIF.Log
        do {
            log = try JSONDecoder().decode(SARIF.Log.self, from: data)
        } catch {
            throw LintError(path: path, reason: "is not a SARIF log (expected a JSON object with \"runs\")")
        }
        for result in log.runs.flatMap(\.results) {
            guard let fingerprint = result.partialFingerprints[Self.fingerprintKey],
                let uri = result.locations?.first?.physicalLocation?.artifactLocation.uri
            else { continue }
            counts[Key(ruleID: result.ruleId, path: Self.path(ofURI: uri), fingerprint: fingerprint), default: 0] += 1
        }
    }

    /// The findings not in the baseline.
    public func newFindings(_ findings: [Finding]) -> [Finding] {
        var remaining = counts
        return findings.filter { finding in
            let key = Key(ruleID: finding.ruleID, path: finding.path, fingerprint: finding.fingerprint)
            guard let left = remaining[key], left > 0 else { return true }
            remaining[key] = left - 1
            return false
        }
    }

    /// A relative URI as written (percent-encoded), or a `file:` URI's path.
    private static func path(ofURI uri: String) -> String {
        if uri.hasPrefix("file:"), let url = URL(string: uri) { return url.path }
        return uri.removingPercentEncoding ?? uri
    }
}
