#if canImport(Testing)
public import ConcurrencyDebug
public import Testing

/// Expects that `body` makes no concurrency violation. Records an issue at the
/// caller's source location, with the report of every violation as its comment.
/// Returns what `body` returned.
///
///     expectNoConcurrencyViolation {
///         context.performAndWait { entry.height = "3ft" }
///     }
@discardableResult
public func expectNoConcurrencyViolation<Result>(
    _ comment: Comment? = nil, level: Int = 1, attribution: ViolationAttribution = .task,
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Result
) rethrows -> Result {
    let (result, violations) = try withConcurrencyViolationsRecorded(level: level, attribution: attribution, body)
    if let failure = FailureMessage.unexpected(violations, assertion: "expectNoConcurrencyViolation", note: comment?.rawValue) {
        Issue.record(Comment(rawValue: failure), sourceLocation: sourceLocation)
    }
    return result
}

/// The `async` form of `expectNoConcurrencyViolation`.
@discardableResult
public func expectNoConcurrencyViolation<Result>(
    _ comment: Comment? = nil, level: Int = 1, attribution: ViolationAttribution = .task,
    sourceLocation: SourceLocation = #_sourceLocation,
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
) async rethrows -> Result {
    let (result, violations) = try await withConcurrencyViolationsRecorded(
        level: level, attribution: attribution, isolation: isolation, body)
    if let failure = FailureMessage.unexpected(violations, assertion: "expectNoConcurrencyViolation", note: comment?.rawValue) {
        Issue.record(Comment(rawValue: failure), sourceLocation: sourceLocation)
    }
    return result
}

/// Expects that `body` makes at least one concurrency violation, and only of `kind`.
/// Records an issue at the caller's source location when it makes none, or when it
/// makes another kind too. The violations are claimed by the expectation: a checker
/// in trap or report mode, and an enclosing `.concurrencyChecked` trait, do not see
/// them.
@discardableResult
public func expectConcurrencyViolation<Result>(
    _ kind: ViolationKind = .wrongQueue, _ comment: Comment? = nil, level: Int = 1,
    attribution: ViolationAttribution = .task, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Result
) rethrows -> Result {
    let (result, violations) = try withConcurrencyViolationsRecorded(level: level, attribution: attribution, body)
    if let failure = FailureMessage.expected(kind, violations, assertion: "expectConcurrencyViolation", note: comment?.rawValue) {
        Issue.record(Comment(rawValue: failure), sourceLocation: sourceLocation)
    }
    return result
}

/// The `async` form of `expectConcurrencyViolation`.
@discardableResult
public func expectConcurrencyViolation<Result>(
    _ kind: ViolationKind = .wrongQueue, _ comment: Comment? = nil, level: Int = 1,
    attribution: ViolationAttribution = .task, sourceLocation: SourceLocation = #_sourceLocation,
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
) async rethrows -> Result {
    let (result, violations) = try await withConcurrencyViolationsRecorded(
        level: level, attribution: attribution, isolation: isolation, body)
    if let failure = FailureMessage.expected(kind, violations, assertion: "expectConcurrencyViolation", note: comment?.rawValue) {
        Issue.record(Comment(rawValue: failure), sourceLocation: sourceLocation)
    }
    return result
}

/// A trait that runs a test (or each test of a suite) with concurrency checking on,
/// and fails it with one issue per distinct violation made inside it. Each issue is
/// placed at the offending line when the stack passes through the test's own file,
/// else at the test; its comment is the violation's report.
///
///     @Test(.concurrencyChecked) func exportRunsInBackground() async throws { ... }
///
///     @Suite(.concurrencyChecked(level: 2)) struct ImportTests { ... }
///
/// Violations an `expectConcurrencyViolation` inside the test claims are not counted.
public struct ConcurrencyCheckedTrait: TestTrait, SuiteTrait, TestScoping {
    /// The checker's level inside the test, 1 to 3 (`CTXDEBUG_CONCURRENCY`'s values).
    public var level: Int
    /// Which violations are the test's: those of its task (the default) or of the
    /// whole process while it runs.
    public var attribution: ViolationAttribution

    /// The trait with checking at `level` and violations attributed by `attribution`
    /// (`.concurrencyChecked(level:attribution:)`).
    public init(level: Int = 1, attribution: ViolationAttribution = .task) {
        self.level = level
        self.attribution = attribution
    }

    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let (_, violations) = try await withConcurrencyViolationsRecorded(level: level, attribution: attribution) {
            try await function()
        }
        Self.recordIssues(for: violations, in: test)
    }

    /// One issue per distinct violation, at the offending line in the test's file when
    /// the stack has one, else at the test.
    static func recordIssues(for violations: ScopedViolations, in test: Test) {
        for violation in violations.distinct {
            let symbolicated = violation.symbolicated()
            var location = test.sourceLocation
            if let frame = symbolicated.frames.first(where: { $0.file == test.sourceLocation.filePath }),
                let line = frame.line, line > 0
            {
                location = SourceLocation(
                    fileID: test.sourceLocation.fileID, filePath: test.sourceLocation.filePath, line: line,
                    column: max(frame.column ?? 1, 1))
            }
            let count = violation.count
            var single = symbolicated
            single.count = 1
            let text = "concurrency violation in a .concurrencyChecked test (\(count) time\(count == 1 ? "" : "s"))\n"
                + single.report
            Issue.record(Comment(rawValue: text), sourceLocation: location)
        }
    }
}

extension Trait where Self == ConcurrencyCheckedTrait {
    /// Runs the test with concurrency checking on (level 1) and fails it on any
    /// violation inside it.
    public static var concurrencyChecked: Self { ConcurrencyCheckedTrait() }

    /// Runs the test with concurrency checking on at `level` (1, or 2 to also check
    /// that perform blocks run on their queue) and fails it on any violation inside it.
    public static func concurrencyChecked(level: Int = 1, attribution: ViolationAttribution = .task) -> Self {
        ConcurrencyCheckedTrait(level: level, attribution: attribution)
    }
}
#endif
