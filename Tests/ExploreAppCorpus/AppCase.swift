import Foundation

/// One program of the corpus: a bug, or its fixed twin (the same name with `-fixed`).
struct AppCase: Sendable {
    var name: String
    var summary: String
    var run: @Sendable () -> Never

    static let all: [AppCase] = GroupCases.all + HopCases.all + TaskCases.all + WaitCases.all + XCTestCases.all + PrimitiveCases.all + ConflictCases.all
}
