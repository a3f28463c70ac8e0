import ExploreModel
import Testing

@Suite struct SchedulingDecisionTests {
    @Test func placeholder() { #expect(SchedulingDecision(step: 0, enabled: ["driver"], defaultIndex: 0).step == 0) }
}
