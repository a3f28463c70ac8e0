import ExploreModel

/// The text an `ExplorationFailed` prints: enough to act on in a test log.
enum ExplorationText {
    static func render(_ report: ExplorationReport) -> String {
        var lines = ["explored \(report.name) with \(report.strategy), seed \(report.seed): \(report.schedulesRun) schedule(s)"]
        guard let failure = report.failure else { return lines[0] + ", no failure" }
        lines.append("FAILED (\(failure.kind.rawValue)): \(failure.message)")
        if let detail = failure.detail { lines.append(detail) }
        lines.append("minimized from \(failure.deviationsBeforeMinimizing) to \(failure.schedule.deviations.count) deviation(s) from FIFO order:")
        lines += failure.deviationsInWords.map { "  - \($0)" }
        lines.append("replayed \(failure.replaysText)\(failure.reproducible ? "" : " (not reproducible)")")
        if let path = failure.schedulePath { lines.append("schedule: \(path)") }
        if let command = failure.replayCommand { lines.append("replay: \(command)") }
        return lines.joined(separator: "\n")
    }
}
