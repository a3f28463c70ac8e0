import ExploreModel
import Testing

@Suite("delay:K's bounded search, the portfolio, replay and deviation sets")
struct SearchStrategyTests {
    /// Every schedule delay:K runs on `program` until its endRun says it is done.
    static func exhaust(_ bound: Int, _ program: FakeProgram = .twoByThree) -> [String] {
        var strategy = DelayBoundedStrategy(bound: bound)
        var schedules: [String] = []
        for iteration in 0..<1_000 {
            let (trace, goesOn) = program.run(&strategy, iteration: iteration)
            schedules.append(trace.letters)
            if !goesOn { break }
        }
        return schedules
    }

    // Two actors of three steps: C(6,3) = 20 interleavings. A deviation is a switch away
    // from an actor that could go on, or starting with q1 (the default first is the
    // driver). Counted by hand, by number of deviations:
    //   0: dddqqq
    //   1: ddqqqd dqqqdd qqqddd
    //   2: ddqdqq ddqqdq dqddqq dqqddq qdddqq qqdddq
    //   3: dqdqqd dqqdqd qddqqd qdqqdd qqddqd qqdqdd
    //   4: dqdqdq qddqdq qdqddq
    //   5: qdqdqd
    // so at most K deviations: K=0: 1, K=1: 4, K=2: 10, K=3: 16, K=4: 19, K≥5: 20.
    @Test("delay:K runs exactly the schedules with at most K deviations, each once, then ends", arguments: [
        (0, 1), (1, 4), (2, 10), (3, 16), (4, 19), (5, 20), (9, 20),
    ])
    func delayCounts(bound: Int, expected: Int) {
        let schedules = Self.exhaust(bound)
        #expect(schedules.count == expected)
        #expect(Set(schedules).count == schedules.count, "a schedule ran twice")
        // The same set by brute force over all interleavings.
        let program = FakeProgram.twoByThree
        let within = program.allInterleavings().filter { program.deviations(of: $0) <= bound }
        #expect(Set(schedules) == Set(within.map { String($0.map { $0.first! }) }))
    }

    @Test("delay:1 by hand: FIFO first, then the deepest deviation first")
    func delayOneOrder() {
        #expect(Self.exhaust(1) == ["dddqqq", "ddqqqd", "dqqqdd", "qqqddd"])
    }

    @Test("delay:K on three actors: every schedule once, and the counts grow with K up to all interleavings")
    func delayThreeActors() {
        let program = FakeProgram([("driver", 2), ("main", 2), ("q1", 1)])
        let all = program.allInterleavings().count  // 5!/(2!·2!·1!) = 30
        #expect(all == 30)
        var previous = 0
        for bound in 0...6 {
            let schedules = Self.exhaust(bound, program)
            #expect(Set(schedules).count == schedules.count)
            #expect(schedules.count == program.allInterleavings().count { program.deviations(of: $0) <= bound })
            #expect(schedules.count >= previous)
            previous = schedules.count
        }
        #expect(previous == all)
    }

    @Test("delay:K ignores its seed, and after it is exhausted it runs FIFO and says so again")
    func delayAfterExhaustion() {
        var strategy = DelayBoundedStrategy(bound: 0)
        let (first, goesOn) = FakeProgram.twoByThree.run(&strategy, seed: 99)
        #expect(first.letters == "dddqqq")
        #expect(!goesOn)
        #expect(strategy.isExhausted)
        let (again, stillNot) = FakeProgram.twoByThree.run(&strategy, seed: 1)
        #expect(again.letters == "dddqqq")
        #expect(!stillNot)
    }

    @Test("portfolio: rotates random, pct:2, pct:3, delay:1, pos by iteration; delay:1 leaves when exhausted")
    func portfolioRotation() {
        var portfolio = PortfolioStrategy()
        #expect(portfolio.memberNames == ["random", "pct:2", "pct:3", "delay:1", "pos"])
        var names: [String] = []
        for iteration in 0..<24 {
            portfolio.beginRun(iteration: iteration, seed: ExplorationSeeds.seed(base: 1, iteration: iteration))
            names.append(portfolio.runName)
            let trace = FakeProgram.twoByThree.decisions { portfolio.choose($0) }
            let goesOn = portfolio.endRun(trace)
            #expect(goesOn)
        }
        #expect(Array(names[0..<5]) == ["random", "pct:2", "pct:3", "delay:1", "pos"])
        // delay:1 has 4 schedules here: its runs are iterations 3, 8, 13, 18.
        #expect(names.count { $0 == "delay:1" } == 4)
        #expect(portfolio.memberNames == ["random", "pct:2", "pct:3", "pos"])
        #expect(Array(names[19...]) == (19..<24).map { ["random", "pct:2", "pct:3", "pos"][$0 % 4] })
    }

    @Test("portfolio: the same seeds give the same schedules")
    func portfolioIsDeterministic() {
        func schedules() -> [String] {
            var portfolio = PortfolioStrategy()
            return (0..<12).map { iteration in
                FakeProgram.twoByThree.run(&portfolio, iteration: iteration, seed: ExplorationSeeds.seed(base: 4, iteration: iteration)).trace.letters
            }
        }
        #expect(schedules() == schedules())
    }

    @Test("replay: forces the recorded choices, then the default; no divergence on the same program")
    func replayReproduces() {
        var random = RandomStrategy()
        let recorded = StrategyTests.three.run(&random, seed: 21).trace
        var replay = ReplayStrategy(choices: recorded.actors)
        let replayed = StrategyTests.three.run(&replay, seed: 0).trace
        #expect(replayed == recorded)
        #expect(replay.divergence == nil)
        // A prefix: the rest is FIFO.
        var prefix = ReplayStrategy(choices: ["q1"])
        #expect(FakeProgram.twoByThree.run(&prefix).trace.letters == "qqqddd")
    }

    @Test("replay: a forced actor that is not enabled is reported as the divergence at that step")
    func replayDiverges() {
        // Recorded on driver×3, q1×3; replayed where q1 has only one step.
        var replay = ReplayStrategy(choices: ["driver", "q1", "q1", "driver", "driver", "q1"])
        let changed = FakeProgram([("driver", 3), ("q1", 1)])
        _ = changed.run(&replay)
        #expect(replay.divergedAt == 2)
        #expect(replay.divergence == ReplayDivergence(step: 2, expected: "q1", enabled: ["driver"]))
        #expect(replay.divergence?.description.hasPrefix("diverged at step 2: the schedule runs q1 there, but only driver could run") == true)
        // Seen through the protocol, as the scheduler sees it.
        let any: any ExplorationStrategy = replay
        #expect(any.divergence?.step == 2)
        #expect(RandomStrategy().divergence == nil)
        // The next run starts clean.
        _ = FakeProgram.twoByThree.run(&replay)
        #expect(replay.divergence == nil)
    }

    @Test("deviations: a listed step runs its actor when enabled, every other step the default")
    func deviationSet() {
        var strategy = DeviationStrategy([1: "q1", 4: "driver"])
        #expect(FakeProgram.twoByThree.run(&strategy).trace.letters == "dqqqdd")
        var notEnabled = DeviationStrategy([0: "q7"])
        #expect(FakeProgram.twoByThree.run(&notEnabled).trace.letters == "dddqqq")
    }
}
