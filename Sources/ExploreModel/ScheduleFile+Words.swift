// A schedule's deviations in words, and its steps' sites read into file and line.

extension ScheduleFile {
    /// The deviation at `step` in words: what ran, and what FIFO order would have run
    /// there, e.g. "q1 (background)'s block-start at Bug.swift:30 ran before driver's
    /// fetch at Bug.swift:41". The second half is the passed-over actor's next step in
    /// this schedule; when it never ran again, the sentence says so.
    public func describe(deviation step: Int) -> String {
        guard steps.indices.contains(step) else { return "step \(step) is not in the schedule" }
        let ran = steps[step]
        let passedOver = ran.defaultActor
        let ranText = "\(actorLabel(ran.actor))'s \(action(ran))"
        guard ran.isDeviation else { return "\(ranText) ran in FIFO order" }
        guard let next = steps[(step + 1)...].first(where: { $0.actor == passedOver }) else {
            let end = failure == nil ? "the end" : "the failure"
            return "\(ranText) ran before \(actorLabel(passedOver)) could go on (it did not run again before \(end))"
        }
        return "\(ranText) ran before \(actorLabel(passedOver))'s \(action(next))"
    }

    /// Every deviation in words, in schedule order.
    public var deviationsInWords: [String] { deviations.map { describe(deviation: $0) } }

    /// The rule of libdispatch's that lets a real run take the deviation at `step` too
    /// (docs/explore.md, "What a schedule is"): what ran there could run then.
    public func rule(ofDeviation step: Int) -> String {
        guard steps.indices.contains(step) else { return "step \(step) is not in the schedule" }
        let ran = steps[step]
        switch ran.point {
        case .timerFire:
            return "virtual time: a timer's deadline may pass while other work is still to run (never before an earlier deadline)"
        case .timeout:
            return "virtual time: a timed wait may time out before it is signalled"
        case .sleep, .runLoop:
            return "virtual time: a sleep or a run loop's wait may end before the others' work runs"
        case .blockStart where ran.actor == ActorKey.main:
            return "the main queue's next block may start whenever the main thread serves the main queue (waiting in its run loop, "
                + "or gone into dispatchMain()); libdispatch orders blocks within a queue, not across queues"
        case .blockStart:
            return "a queue's next block may start as soon as the queue is free: libdispatch orders blocks within a queue, not "
                + "across queues, and a concurrent queue may start any of its blocks"
        case .performAndWait, .dispatchSync, .dispatchApply:
            return "a waiter gets its queue once the queue is free, in its turn behind the blocks queued before it"
                + (ran.actor == ActorKey.main ? ", while the main thread serves the main queue" : "")
        default:
            return "a thread may be preempted at any scheduling point: another one that can run goes first"
        }
    }

    /// The rule of each deviation, in schedule order.
    public var deviationRules: [String] { deviations.map { rule(ofDeviation: $0) } }

    /// An actor's key with its queue's name: "q1 (background)", "main (viewContext)",
    /// "driver". A queue's name is the `queue` of its first block-start (else of its
    /// first step that has one); the driver has none (its steps name the queue they
    /// act on).
    public func actorLabel(_ actor: String) -> String {
        guard let name = queueName(of: actor), name != actor else { return actor }
        return "\(actor) (\(name))"
    }

    /// The name of a queue actor's own queue, if a step gives it.
    public func queueName(of actor: String) -> String? {
        guard actor != ActorKey.driver else { return nil }
        let own = steps.first { $0.actor == actor && $0.point == .blockStart && $0.queue?.isEmpty == false }
        return (own ?? steps.first { $0.actor == actor && $0.queue?.isEmpty == false })?.queue
    }

    /// "block-start at Bug.swift:30", "perform-enqueue on background at Bug.swift:12":
    /// the point, the queue it acts on when that is not the actor's own, and the site's
    /// file (its last path component only, with `fileNameOnly`) and line.
    public func action(_ step: ScheduleStep, fileNameOnly: Bool = false) -> String {
        var text = step.point.rawValue
        if let queue = step.queue, !queue.isEmpty, queue != queueName(of: step.actor) { text += " on \(queue)" }
        guard let site = step.site else { return text }
        guard var parsed = SourceSite(site) else { return text + (site.hasPrefix("in ") ? " " : " at ") + site }
        if fileNameOnly, let name = parsed.file.split(separator: "/").last { parsed.file = String(name) }
        return text + " at \(parsed.shortText)"
    }
}

/// A step's site, `"File.swift:LINE"` optionally followed by `" in function"`, read
/// into its parts (for SARIF locations and short texts).
public struct SourceSite: Sendable, Equatable {
    public var file: String
    public var line: Int
    public var function: String?

    public init(file: String, line: Int, function: String? = nil) {
        self.file = file
        self.line = line
        self.function = function
    }

    /// Nil when `text` has no `:LINE` after a file name.
    public init?(_ text: String) {
        let place: Substring
        if let range = text.range(of: " in ") {
            place = text[..<range.lowerBound]
            function = String(text[range.upperBound...])
        } else {
            place = Substring(text)
            function = nil
        }
        guard let colon = place.lastIndex(of: ":"), let line = Int(place[place.index(after: colon)...]), line > 0,
            colon > place.startIndex
        else { return nil }
        file = String(place[..<colon])
        self.line = line
    }

    /// "Bug.swift:30".
    public var shortText: String { "\(file):\(line)" }
}
