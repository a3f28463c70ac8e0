import ExploreModel
import Testing

@Suite("Strategies: random, pct, delay, portfolio, replay, deviations")
struct StrategyTests {
    static let three = FakeProgram([("driver", 4), ("main", 3), ("q1", 3), ("q2", 2)])

    static func schedule(_ strategy: some ExplorationStrategy, seed: UInt64, program: FakeProgram = three) -> [String] {
        var strategy = strategy
        return program.run(&strategy, seed: seed).trace.actors
    }

    @Test("random: the same seed gives the same choices, other seeds other ones, every actor gets chosen")
    func randomIsDeterministic() {
        #expect(Self.schedule(RandomStrategy(), seed: 7) == Self.schedule(RandomStrategy(), seed: 7))
        let schedules = Set((1...50).map { Self.schedule(RandomStrategy(), seed: $0) })
        #expect(schedules.count >= 40)
        // A deviation from FIFO in some run at the first point, for each non-default actor.
        let firsts = Set((1...50).map { Self.schedule(RandomStrategy(), seed: $0)[0] })
        #expect(firsts == ["driver", "main", "q1", "q2"])
    }

    @Test("random: one strategy value reused across runs gives each run what a fresh one gives")
    func randomDependsOnlyOnTheSeed() {
        var reused = RandomStrategy()
        for seed: UInt64 in [3, 9, 3] {
            #expect(Self.three.run(&reused, seed: seed).trace.actors == Self.schedule(RandomStrategy(), seed: seed))
        }
    }

    @Test("pos: the same seed gives the same choices, different seeds differ, every actor gets chosen first in some run")
    func posIsDeterministic() throws {
        #expect(Self.schedule(POSStrategy(), seed: 5) == Self.schedule(POSStrategy(), seed: 5))
        #expect(Set((1...50).map { Self.schedule(POSStrategy(), seed: $0) }).count >= 20)
        #expect(Set((1...50).map { Self.schedule(POSStrategy(), seed: $0)[0] }) == ["driver", "main", "q1", "q2"])
        #expect(try ExploreStrategy(parsing: "POS ").makeStrategy() is POSStrategy)
        #expect(ExploreStrategy.pos.description == "pos")
    }

    @Test("pos: a step keeps its priority until it runs, so a step that lost stays behind (BasicPOS, not random)")
    func posKeepsPriorities() {
        // Two actors of three steps: the driver running all three first takes 1/2 (it wins
        // the first draw) x 2/3 (its new draw beats q1's, which lost once) x 3/4 = 1/4
        // under POS, 1/8 under random.
        func share(_ make: () -> some ExplorationStrategy) -> Double {
            let runs = 4_000
            let hits = (1...runs).count { seed in
                var strategy = make()
                return FakeProgram.twoByThree.run(&strategy, seed: UInt64(seed)).trace.actors == ["driver", "driver", "driver", "q1", "q1", "q1"]
            }
            return Double(hits) / Double(runs)
        }
        #expect(abs(share { POSStrategy() } - 0.25) < 0.03)
        #expect(abs(share { RandomStrategy() } - 0.125) < 0.03)
    }

    @Test("pct: the same seed gives the same choices, and different seeds differ")
    func pctIsDeterministic() {
        #expect(Self.schedule(PCTStrategy(depth: 3), seed: 11) == Self.schedule(PCTStrategy(depth: 3), seed: 11))
        #expect(Set((1...50).map { Self.schedule(PCTStrategy(depth: 3), seed: $0) }).count >= 10)
    }

    @Test("pct:1 has no change point: an actor that starts runs until it is done (fixed priorities)")
    func pctDepthOneNeverPreempts() {
        var seen: Set<String> = []
        for seed: UInt64 in 1...40 {
            var strategy = PCTStrategy(depth: 1)
            let (trace, goesOn) = FakeProgram.twoByThree.run(&strategy, seed: seed)
            #expect(strategy.changePoints.isEmpty)
            #expect(goesOn)
            seen.insert(trace.letters)
        }
        #expect(seen == ["dddqqq", "qqqddd"])
    }

    @Test("pct:2: the one change point c lowers the running actor there: A^c B^3 A^(3-c) for 0 < c < 3")
    func pctChangePointPreempts() {
        var preemptions = 0
        for seed: UInt64 in 1...200 {
            var strategy = PCTStrategy(depth: 2)
            _ = FakeProgram.twoByThree.run(&strategy, seed: 0)  // learns k = 6
            #expect(strategy.estimatedSteps == 6)
            let trace = FakeProgram.twoByThree.run(&strategy, iteration: 1, seed: seed).trace
            let points = strategy.changePoints
            try? #require(points.count == 1)
            let change = points[0]
            #expect((0..<6).contains(change))
            let first = trace[0].actor
            let second = first == "driver" ? "q1" : "driver"
            // c = 0 lowers the top actor before it runs, c ≥ 3 lowers the only one left:
            // no switch either way. Otherwise the top actor runs c steps, then the other.
            let switches = change > 0 && change < 3
            let expected = switches
                ? Array(repeating: first, count: change) + Array(repeating: second, count: 3) + Array(repeating: first, count: 3 - change)
                : Array(repeating: first, count: 3) + Array(repeating: second, count: 3)
            #expect(trace.actors == expected, "seed \(seed), change point \(change)")
            if change > 0 && change < 3 { preemptions += 1 }
        }
        #expect(preemptions > 0)
    }

    @Test("pct: change points are distinct, in [0, k), k starting at 64 and then the longest run seen")
    func pctStepEstimate() {
        var strategy = PCTStrategy(depth: 4)
        strategy.beginRun(iteration: 0, seed: 5)
        #expect(strategy.estimatedSteps == 64)
        #expect(strategy.changePoints.count == 3)
        #expect(Set(strategy.changePoints).count == 3)
        #expect(strategy.changePoints.allSatisfy { (0..<64).contains($0) })
        #expect(strategy.changePoints == strategy.changePoints.sorted())
        strategy.observe(runLength: 10)
        #expect(strategy.estimatedSteps == 10)
        strategy.observe(runLength: 4)
        #expect(strategy.estimatedSteps == 10)
        strategy.observe(runLength: 30)
        #expect(strategy.estimatedSteps == 30)
        // Fewer steps than change points: every step is one.
        var short = PCTStrategy(depth: 5)
        short.observe(runLength: 2)
        short.beginRun(iteration: 0, seed: 1)
        #expect(short.changePoints == [0, 1])
    }

    @Test("pct: actors seen later take a random place among the priorities")
    func pctNewActorsGetRandomPriorities() {
        var tops: Set<String> = []
        for seed: UInt64 in 1...60 {
            var strategy = PCTStrategy(depth: 1)
            _ = Self.three.run(&strategy, seed: seed)
            #expect(Set(strategy.priorityOrder) == ["driver", "main", "q1", "q2"])
            tops.insert(strategy.priorityOrder[0])
        }
        #expect(tops == ["driver", "main", "q1", "q2"])
    }
}
