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
