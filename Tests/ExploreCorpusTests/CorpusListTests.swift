import ExploreCorpus
import Testing

@Suite struct CorpusListTests {
    @Test func theCorpusHasTwentyCasesWithDistinctNames() {
        #expect(exploreCorpus.count >= 20)
        #expect(Set(exploreCorpus.map(\.name)).count == exploreCorpus.count)
    }
}
