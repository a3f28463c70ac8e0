public import ViolationModel

// The access journal's types were called AccessLog… until the journal had one name in
// code and docs. The old names still compile, with a warning that says the new one.

@available(*, deprecated, renamed: "AccessJournalReader")
public typealias AccessLogReader = AccessJournalReader
@available(*, deprecated, renamed: "AccessJournalWriter")
public typealias AccessLogWriter = AccessJournalWriter
@available(*, deprecated, renamed: "AccessJournalError")
public typealias AccessLogError = AccessJournalError
@available(*, deprecated, renamed: "AccessJournalEvent")
public typealias AccessLogEvent = AccessJournalEvent
@available(*, deprecated, renamed: "AccessJournalSession")
public typealias AccessLogSession = AccessJournalSession
@available(*, deprecated, renamed: "AccessJournalBlock")
public typealias AccessLogBlock = AccessJournalBlock
@available(*, deprecated, renamed: "AccessJournalProblem")
public typealias AccessLogProblem = AccessJournalProblem
@available(*, deprecated, renamed: "AccessJournalStats")
public typealias AccessLogStats = AccessJournalStats

extension ConcurrencyDebug {
    @available(*, deprecated, renamed: "flushAccessJournal()")
    public static func flushAccessLog() { flushAccessJournal() }

    @available(*, deprecated, renamed: "accessJournalPath")
    public static var accessLogPath: String? { accessJournalPath }
}

extension ConcurrencyDebug.Configuration {
    @available(*, deprecated, renamed: "accessJournalPath")
    public var accessLogPath: String? {
        get { accessJournalPath }
        set { accessJournalPath = newValue }
    }

    @available(*, deprecated, renamed: "accessJournalVariable")
    public static var accessLogVariable: String { accessJournalVariable }

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
