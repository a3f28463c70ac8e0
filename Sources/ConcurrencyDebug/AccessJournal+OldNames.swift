public import ViolationModel

// The access journal's types were called AccessLog… until the journal had one name in
// code and docs. The old names still compile, with a warning that says the new one.

/// The old name of `AccessJournalReader`.
@available(*, deprecated, renamed: "AccessJournalReader")
public typealias AccessLogReader = AccessJournalReader
/// The old name of `AccessJournalWriter`.
@available(*, deprecated, renamed: "AccessJournalWriter")
public typealias AccessLogWriter = AccessJournalWriter
/// The old name of `AccessJournalError`.
@available(*, deprecated, renamed: "AccessJournalError")
public typealias AccessLogError = AccessJournalError
/// The old name of `AccessJournalEvent`.
@available(*, deprecated, renamed: "AccessJournalEvent")
public typealias AccessLogEvent = AccessJournalEvent
/// The old name of `AccessJournalSession`.
@available(*, deprecated, renamed: "AccessJournalSession")
public typealias AccessLogSession = AccessJournalSession
/// The old name of `AccessJournalBlock`.
@available(*, deprecated, renamed: "AccessJournalBlock")
public typealias AccessLogBlock = AccessJournalBlock
/// The old name of `AccessJournalProblem`.
@available(*, deprecated, renamed: "AccessJournalProblem")
public typealias AccessLogProblem = AccessJournalProblem
/// The old name of `AccessJournalStats`.
@available(*, deprecated, renamed: "AccessJournalStats")
public typealias AccessLogStats = AccessJournalStats

extension ConcurrencyDebug {
    /// The old name of `flushAccessJournal()`.
    @available(*, deprecated, renamed: "flushAccessJournal()")
    public static func flushAccessLog() { flushAccessJournal() }

    /// The old name of `accessJournalPath`.
    @available(*, deprecated, renamed: "accessJournalPath")
    public static var accessLogPath: String? { accessJournalPath }
}

extension ConcurrencyDebug.Configuration {
    /// The old name of `accessJournalPath`.
    @available(*, deprecated, renamed: "accessJournalPath")
    public var accessLogPath: String? {
        get { accessJournalPath }
        set { accessJournalPath = newValue }
    }

    /// The old name of `accessJournalVariable`.
    @available(*, deprecated, renamed: "accessJournalVariable")
    public static var accessLogVariable: String { accessJournalVariable }

    /// The initializer with the old label `accessLogPath:` for `accessJournalPath:`.
    @available(*, deprecated, renamed: "init(level:onViolation:reportPath:exitCode:suppressionsPath:accessJournalPath:reportDirectory:)")
    public init(
        level: ConcurrencyDebug.Level = .off, onViolation: OnViolation = .trap, reportPath: String? = nil,
        exitCode: Int32 = ConcurrencyDebug.Configuration.defaultExitCode, suppressionsPath: String? = nil,
        accessLogPath: String?, reportDirectory: String? = nil
    ) {
        self.init(
            level: level, onViolation: onViolation, reportPath: reportPath, exitCode: exitCode,
            suppressionsPath: suppressionsPath, accessJournalPath: accessLogPath, reportDirectory: reportDirectory)
    }
}
