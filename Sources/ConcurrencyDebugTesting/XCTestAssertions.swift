#if canImport(XCTest)
public import ConcurrencyDebug
import XCTest

/// Asserts that `body` makes no concurrency violation. Fails at the caller's file and
/// line, with the report of every violation (headline, owner, toucher, fix, stack) as
/// the message. Returns what `body` returned.
///
/// Checking is turned on for the scope; no environment variable is needed. See
/// `ViolationAttribution` for which violations count as the block's.
///
///     XCTAssertNoConcurrencyViolation {
///         context.performAndWait { entry.height = "3ft" }
///     }
@discardableResult
public func XCTAssertNoConcurrencyViolation<Result>(
    _ message: @autoclosure () -> String = "", level: Int = 1, attribution: ViolationAttribution = .task,
    file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Result
) rethrows -> Result {
    let (result, violations) = try withConcurrencyViolationsRecorded(level: level, attribution: attribution, body)
    if let failure = FailureMessage.unexpected(violations, assertion: "XCTAssertNoConcurrencyViolation", note: message()) {
        XCTFail(failure, file: file, line: line)
    }
    return result
}

/// The `async` form of `XCTAssertNoConcurrencyViolation`.
@discardableResult
public func XCTAssertNoConcurrencyViolation<Result>(
    _ message: @autoclosure () -> String = "", level: Int = 1, attribution: ViolationAttribution = .task,
    file: StaticString = #filePath, line: UInt = #line,
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
) async rethrows -> Result {
    let (result, violations) = try await withConcurrencyViolationsRecorded(
        level: level, attribution: attribution, isolation: isolation, body)
    if let failure = FailureMessage.unexpected(violations, assertion: "XCTAssertNoConcurrencyViolation", note: message()) {
        XCTFail(failure, file: file, line: line)
    }
    return result
}

/// Asserts that `body` makes at least one concurrency violation, and only of `kind`.
/// Fails at the caller's file and line when it makes none (saying so), or when it
/// makes another kind too (with the report of each of those). The violations are
/// claimed by the assertion: a checker in trap or report mode does not see them.
///
///     XCTAssertConcurrencyViolation(.wrongQueue) {
///         DispatchQueue.global().sync { _ = entry.height }
///     }
@discardableResult
public func XCTAssertConcurrencyViolation<Result>(
    _ kind: ViolationKind = .wrongQueue, _ message: @autoclosure () -> String = "", level: Int = 1,
    attribution: ViolationAttribution = .task, file: StaticString = #filePath, line: UInt = #line,
    _ body: () throws -> Result
) rethrows -> Result {
    let (result, violations) = try withConcurrencyViolationsRecorded(level: level, attribution: attribution, body)
    if let failure = FailureMessage.expected(kind, violations, assertion: "XCTAssertConcurrencyViolation", note: message()) {
        XCTFail(failure, file: file, line: line)
    }
    return result
}

/// The `async` form of `XCTAssertConcurrencyViolation`.
@discardableResult
public func XCTAssertConcurrencyViolation<Result>(
    _ kind: ViolationKind = .wrongQueue, _ message: @autoclosure () -> String = "", level: Int = 1,
    attribution: ViolationAttribution = .task, file: StaticString = #filePath, line: UInt = #line,
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
) async rethrows -> Result {
    let (result, violations) = try await withConcurrencyViolationsRecorded(
        level: level, attribution: attribution, isolation: isolation, body)
    if let failure = FailureMessage.expected(kind, violations, assertion: "XCTAssertConcurrencyViolation", note: message()) {
        XCTFail(failure, file: file, line: line)
    }
    return result
}
#endif
