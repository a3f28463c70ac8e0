import CtxdebugHelpers
import Testing

/// The one trimming rule: whitespace around a value (spaces, tabs, newlines) is not
/// part of it.
@Suite struct EnvironmentValueTests {
    @Test func whitespaceAroundAValueIsNotPartOfIt() {
        #expect(EnvironmentValue.trimmed(" \t2\n") == "2")
        #expect(EnvironmentValue.trimmed("a b") == "a b")
        #expect(EnvironmentValue.isBlank(" \t\n"))
        #expect(!EnvironmentValue.isBlank(" x "))
    }

    @Test func integersInARange() {
        #expect(EnvironmentValue.integer(" 66 ", in: 0...255) == 66)
        #expect(EnvironmentValue.integer("-4", in: 0...255) == nil)
        #expect(EnvironmentValue.integer("256", in: 0...255) == nil)
        #expect(EnvironmentValue.integer("6 6", in: 0...255) == nil)
    }

    @Test func nonNegativeNumbers() {
        #expect(EnvironmentValue.number(" 12.5\t", atLeast: 0) == 12.5)
        #expect(EnvironmentValue.number("0", atLeast: 0) == 0)
        #expect(EnvironmentValue.number("-1", atLeast: 0) == nil)
        #expect(EnvironmentValue.number("inf", atLeast: 0) == nil)
        #expect(EnvironmentValue.number("nan", atLeast: 0) == nil)
        #expect(EnvironmentValue.number("fast", atLeast: 0) == nil)
    }

    @Test func choicesIgnoreCase() {
        #expect(EnvironmentValue.choice(" Report ", among: ["trap", "report", "log"]) == "report")
        #expect(EnvironmentValue.choice("explode", among: ["trap", "report", "log"]) == nil)
    }

    @Test func listsAreTrimmedItemByItem() {
        #expect(EnvironmentValue.list(" all, -lost-update ,,\tdefault\n") == ["all", "-lost-update", "default"])
        #expect(EnvironmentValue.list(" , ").isEmpty)
    }

    @Test func percentPIsTheProcessID() {
        #expect(EnvironmentValue.replacingPercentP(in: "/tmp/j-%p.journal", with: 42) == "/tmp/j-42.journal")
        #expect(EnvironmentValue.replacingAll("\"", in: #"say "hi""#, with: #"\""#) == #"say \"hi\""#)
    }
}
