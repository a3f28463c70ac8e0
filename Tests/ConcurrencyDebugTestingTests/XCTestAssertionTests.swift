import ConcurrencyDebug
import ConcurrencyDebugTesting
import Foundation
import TestSupport
import XCTest

/// The XCTest assertions. Failures are caught by overriding `recordFailure`, so each
/// test can check the failure's message, file and line.
final class XCTestAssertionTests: XCTestCase {
    struct Failure {
        var description: String
        var file: String
        var line: Int
    }

    var failures: [Failure] = []
    var catching = false

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        if catching {
            failures.append(Failure(description: description, file: filePath, line: lineNumber))
        } else {
            super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
    }

    /// Runs `body` with failures caught rather than recorded.
    func caught(_ body: () -> Void) -> [Failure] {
        failures = []
        catching = true
        body()
        catching = false
        return failures
    }

    func testNoViolationPassesAndReturnsTheValue() {
        let (value, owner) = makeConfined()
        let result = caught {
            let read = XCTAssertNoConcurrencyViolation { owner.sync { value.value + 41 } }
            XCTAssertEqual(read, 41)
        }
        XCTAssertTrue(result.isEmpty, "\(result.map(\.description))")
    }

    func testNoViolationFailsAtTheCallersLineWithTheReport() {
        let (value, _) = makeConfined()
        let result = caught {
            XCTAssertNoConcurrencyViolation("reading the counter") { touchFromAnotherQueue(value) }  // XCT-NO-VIOLATION
        }
        XCTAssertEqual(result.count, 1)
        guard let failure = result.first else { return }
        XCTAssertEqual(failure.line, line(of: "XCT-NO-VIOLATION"))
        XCTAssertTrue(failure.file.hasSuffix("XCTestAssertionTests.swift"), failure.file)
        XCTAssertTrue(failure.description.contains("XCTAssertNoConcurrencyViolation failed: 1 distinct concurrency violation (1 in all) - reading the counter"), failure.description)
        XCTAssertTrue(failure.description.contains("BUG DETECTED: get of QueueConfined<Int>"), failure.description)
        XCTAssertTrue(failure.description.contains("Support.swift:\(line(of: "VIOLATING-ACCESS", in: supportFile))"), failure.description)
        XCTAssertFalse(processRecorded(value.name), "claimed by the assertion, not recorded for the process")
    }

    func testExpectedKindPassesAndClaimsTheViolation() {
        let (value, _) = makeConfined()
        let result = caught {
            XCTAssertConcurrencyViolation(.wrongQueue) { touchFromAnotherQueue(value) }
        }
        XCTAssertTrue(result.isEmpty, "\(result.map(\.description))")
        XCTAssertFalse(processRecorded(value.name))
    }

    func testExpectedKindFailsWhenThereIsNone() {
        let (value, owner) = makeConfined()
        let result = caught {
            XCTAssertConcurrencyViolation { owner.sync { _ = value.value } }  // XCT-NONE
        }
        XCTAssertEqual(result.map(\.line), [line(of: "XCT-NONE")])
        XCTAssertTrue(result.first?.description.contains("expected a wrong-queue violation, but the block made no concurrency violation") == true)
    }

    func testExpectedKindFailsOnAnotherKind() {
        let (value, _) = makeConfined()
        let result = caught {
            XCTAssertConcurrencyViolation(.performOffQueue) { touchFromAnotherQueue(value) }  // XCT-OTHER-KIND
        }
        XCTAssertEqual(result.map(\.line), [line(of: "XCT-OTHER-KIND")])
        XCTAssertTrue(result.first?.description.contains("expected only perform-off-queue violations, but the block also made wrong-queue") == true)
        XCTAssertTrue(result.first?.description.contains("BUG DETECTED") == true)
    }

    func testAsyncFormSeesChildTasks() async {
        let (value, _) = makeConfined()
        failures = []
        catching = true
        await XCTAssertConcurrencyViolation {
            async let touched: Void = touchFromAnotherQueue(value)
            await touched
        }
        catching = false
        XCTAssertTrue(failures.isEmpty, "\(failures.map(\.description))")
    }
}

let supportFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Support.swift").path
