import ExploreModel
import Testing

@Suite("Strategy specs and seed streams")
struct SpecAndSeedTests {
    @Test("The accepted specs, in any case and with spaces around", arguments: [
        ("random", ExploreStrategy.random), ("pct", .pct(depth: 3)), ("pct:3", .pct(depth: 3)), ("PCT:5", .pct(depth: 5)),
        ("delay:2", .delay(2)), ("delay:0", .delay(0)), (" portfolio\n", .portfolio),
    ])
    func parses(text: String, spec: ExploreStrategy) throws {
        #expect(try ExploreStrategy(parsing: text) == spec)
        #expect(try ExploreStrategy(parsing: spec.description) == spec)
    }

    @Test("A bad spec says why and what is accepted", arguments: [
        ("fifo", "unknown strategy"), ("", "no strategy named"), ("pct:0", "pct's depth must be a whole number from 1 to 32"),
        ("pct:x", "pct's depth must be"), ("delay", "delay needs its bound of deviations, as in delay:2"),
        ("delay:-1", "delay's bound must be a whole number from 0 to 32"), ("random:2", "random takes no argument"), ("pct:", "pct's depth"),
    ])
    func rejects(text: String, reason: String) {
        #expect {
            try ExploreStrategy(parsing: text)
        } throws: { error in
            let message = String(describing: error)
            return message.contains(reason) && message.contains("accepted: random, pct (depth 3), pct:D") && message.contains("'\(text)'")
        }
    }

    @Test("makeStrategy gives the named strategy")
    func makes() throws {
        #expect(try ExploreStrategy(parsing: "pct:4").makeStrategy().runName == "pct:4")
        #expect(try ExploreStrategy(parsing: "delay:2").makeStrategy().runName == "delay:2")
        #expect(try ExploreStrategy(parsing: "random").makeStrategy() is RandomStrategy)
        #expect(try ExploreStrategy(parsing: "portfolio").makeStrategy() is PortfolioStrategy)
    }

    @Test("A run's seed depends on the base and the iteration only, and differs between them")
    func seeds() {
        #expect(ExplorationSeeds.seed(base: 42, iteration: 17) == ExplorationSeeds.seed(base: 42, iteration: 17))
        let seeds = (0..<10_000).map { ExplorationSeeds.seed(base: 42, iteration: $0) }
        #expect(Set(seeds).count == seeds.count)
        #expect(ExplorationSeeds.seed(base: 1, iteration: 0) != ExplorationSeeds.seed(base: 2, iteration: 0))
        // Iteration 0 of base S is SplitMix(seed: S)'s first output, as documented.
        #expect(ExplorationSeeds.seed(base: 0, iteration: 0) == 0xE220_A839_7B1D_CDAF)
    }

    @Test("-j N and --shard K/N: worker w takes w, w+N, ...; shard K takes i % N == K-1")
    func partitionExamples() {
        #expect(Array(ExplorationSeeds.iterations(budget: 10, worker: 1, workers: 3)) == [1, 4, 7])
        #expect(Array(ExplorationSeeds.iterations(budget: 10, shard: 2, shards: 4)) == [1, 5, 9])
        #expect(Array(ExplorationSeeds.iterations(budget: 20, worker: 1, workers: 2, shard: 1, shards: 2)) == [2, 6, 10, 14, 18])
        #expect(Array(ExplorationSeeds.iterations(budget: 0)) == [])
    }

    @Test("Workers within shards split any budget into disjoint sets that cover it")
    func partitionsCover() {
        for budget in [0, 1, 7, 100, 101] {
            for workers in 1...4 {
                for shards in 1...4 {
                    var seen: [Int] = []
                    for shard in 1...shards {
                        for worker in 0..<workers {
                            seen += ExplorationSeeds.iterations(budget: budget, worker: worker, workers: workers, shard: shard, shards: shards)
                        }
                    }
                    #expect(seen.sorted() == Array(0..<budget), "budget \(budget), -j \(workers), \(shards) shards")
                }
            }
        }
    }

    @Test("--shard K/N text")
    func shardSpec() throws {
        #expect(try ShardSpec(parsing: "2/4") == ShardSpec(index: 2, count: 4))
        for bad in ["0/4", "5/4", "2", "a/b", "1/0"] {
            #expect(throws: ShardSpecError(text: bad)) { try ShardSpec(parsing: bad) }
        }
        #expect(ShardSpecError(text: "5/4").description == "invalid shard '5/4': expected K/N with 1 ≤ K ≤ N, as in --shard 2/4")
    }
}
