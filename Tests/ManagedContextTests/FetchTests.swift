import Foundation
import Testing
import ManagedContext
import TestSupport

@Suite struct FetchTests {
    func seeded(_ n: Int = 40) throws -> TestStack {
        let stack = try TestStack()
        let c = stack.privateContext()
        try c.performAndWait {
            for i in 0..<n {
                let s = Sample(context: c)
                s.name = i % 4 == 0 ? nil : ["Rincon", "rincon", "Malibu", "Pipeline"][i % 4] + "-\(i)"
                s.small = Int16(i % 5)
                s.large = Int64(i)
                s.ratio = Double(i) / 2
                s.flag = i % 2 == 0
                s.when = Date(timeIntervalSinceReferenceDate: Double(i) * 86_400)
            }
            try c.save()
        }
        return stack
    }

    func names(_ stack: TestStack, _ request: FetchRequest<Sample>) throws -> [Int64] {
        let c = stack.privateContext()
        return try c.performAndWait { try c.fetch(request).map { $0.large! } }
    }

    @Test func comparisonOperators() throws {
        let stack = try seeded()
        #expect(try names(stack, .init(predicate: \Sample.large == 3)) == [3])
        #expect(try names(stack, .init(predicate: \Sample.large < 3)) == [0, 1, 2])
        #expect(try names(stack, .init(predicate: \Sample.large <= 2)) == [0, 1, 2])
        #expect(try names(stack, .init(predicate: \Sample.large > 37)) == [38, 39])
        #expect(try names(stack, .init(predicate: \Sample.large >= 38)) == [38, 39])
        #expect(try names(stack, .init(predicate: \Sample.large != 0 && \Sample.large < 3)) == [1, 2])
        #expect(try names(stack, .init(predicate: \Sample.small == 4 || \Sample.large == 0)) == [0, 4, 9, 14, 19, 24, 29, 34, 39])
        #expect(try names(stack, .init(predicate: !(\Sample.large >= 2))) == [0, 1])
        #expect(try names(stack, .init(predicate: .isIn(\.large, [5, 7, 99]))) == [5, 7])
        #expect(try names(stack, .init(predicate: \Sample.ratio > 19.0)) == [39])
        #expect(try names(stack, .init(predicate: \Sample.flag == true && \Sample.large < 5)) == [0, 2, 4])
        #expect(try names(stack, .init(predicate: \Sample.when >= Date(timeIntervalSinceReferenceDate: 38 * 86_400))) == [38, 39])
    }

    @Test func stringOperatorsAreCaseSensitiveAndNilAware() throws {
        let stack = try seeded(12)
        #expect(try names(stack, .init(predicate: .beginsWith(\.name, "rincon"))) == [1, 5, 9])
        #expect(try names(stack, .init(predicate: .beginsWith(\.name, "Rincon"))) == [])
        #expect(try names(stack, .init(predicate: .beginsWith(\.name, "Pipe"))) == [3, 7, 11])
        #expect(try names(stack, .init(predicate: .contains(\.name, "lib"))) == [2, 6, 10])
        #expect(try names(stack, .init(predicate: \Sample.name == nil)) == [0, 4, 8])
        // != includes NULLs, as Core Data's SQL does.
        #expect(try names(stack, .init(predicate: \Sample.name != "Malibu-2")).count == 11)
        // A value that looks like SQL is a bound parameter, not SQL.
        #expect(try names(stack, .init(predicate: \Sample.name == "x' OR '1'='1")) == [])
    }

    /// A name-based predicate whose value is not of the attribute's type is refused:
    /// SQL would convert it by column affinity and memory would not.
    @Test func aValueOfAnotherTypeIsRefused() throws {
        let stack = try seeded(4)
        let c = stack.privateContext()
        c.performAndWait {
            do {
                _ = try c.fetch(FetchRequest<Sample>(predicate: .attribute("name", .greaterOrEqual, Int64(32767))))
                Issue.record("the fetch should be refused")
            } catch let error as ManagedContextError {
                #expect(error.code == .invalidFetchRequest)
                #expect(error.message.contains("Sample.name is string"))
            } catch {
                Issue.record("unexpected \(error)")
            }
            #expect((try? c.fetch(FetchRequest<Sample>(predicate: .attribute("ratio", .greaterOrEqual, Int64(1))))) != nil, "an integer for a double is fine")
        }
    }

    @Test func sortLimitOffsetAndCount() throws {
        let stack = try seeded()
        var r = FetchRequest<Sample>(sortDescriptors: [FetchSortDescriptor(\Sample.small, ascending: false), FetchSortDescriptor(\Sample.large)])
        r.fetchLimit = 4
        r.fetchOffset = 2
        #expect(try names(stack, r) == [14, 19, 24, 29])
        let c = stack.privateContext()
        try c.performAndWait { () throws in
            #expect(try c.count(for: FetchRequest<Sample>(predicate: \Sample.small == 0)) == 8)
            #expect(try c.count(for: r) == 4)
            #expect(try c.fetchObjectIDs(r).count == 4)
        }
    }

    @Test func fetchIncludesUnsavedInsertsChangesAndDeletes() throws {
        let stack = try seeded(10)
        let c = stack.privateContext()
        try c.performAndWait {
            let all = try c.fetch(FetchRequest<Sample>(sortDescriptors: [FetchSortDescriptor(\Sample.large)]))
            all[3].large = 100  // now past the others
            all[5].small = 9  // now matches small == 9
            c.delete(all[0])
            let added = Sample(context: c)
            added.large = 50
            added.small = 9

            var request = FetchRequest<Sample>(sortDescriptors: [FetchSortDescriptor(\Sample.large, ascending: false)])
            request.fetchLimit = 3
            #expect(try c.fetch(request).map { $0.large! } == [100, 50, 9])
            #expect(try c.fetch(FetchRequest<Sample>(predicate: \Sample.small == 9)).map { $0.large! }.sorted() == [5, 50])
            #expect(try c.count(for: FetchRequest<Sample>()) == 10)
            #expect(try c.fetch(FetchRequest<Sample>(predicate: \Sample.large == 0)).isEmpty)

            var stored = FetchRequest<Sample>(predicate: \Sample.small == 9)
            stored.includesPendingChanges = false
            #expect(try c.fetch(stored).isEmpty)
        }
    }

    @Test func batchedFetchHoldsOnlyTheBatchItReads() throws {
        let stack = try seeded(2_000)
        let c = stack.privateContext()
        try c.performAndWait {
            var request = FetchRequest<Sample>(sortDescriptors: [FetchSortDescriptor(\Sample.large)])
            request.fetchBatchSize = 100
            let results = try c.fetch(request)
            #expect(results.count == 2_000)
            var expected: Int64 = 0
            var maxRegistered = 0
            for s in results {
                #expect(s.large == expected)
                expected += 1
                if expected % 250 == 0 { maxRegistered = max(maxRegistered, c.registeredObjects.count) }
            }
            #expect(maxRegistered <= 300, "registered \(maxRegistered) objects while reading batches of 100")
        }
    }

    /// The same random predicates evaluated by SQL (saved rows) and in memory
    /// (the same rows as unsaved inserts) must select the same rows.
    @Test func sqlAndInMemoryEvaluationAgree() throws {
        var rng = SplitMix(seed: 42)
        let stack = try TestStack()
        let otherStack = try TestStack()
        let saved = stack.privateContext()
        let unsaved = otherStack.privateContext()
        let texts = ["", "a", "ab", "abc", "B", "ba", "é", "a%_", nil]
        func fill(_ c: ManagedObjectContext, _ seed: UInt64) {
            var local = SplitMix(seed: seed)
            for i in 0..<120 {
                let s = Sample(context: c)
                s.large = Int64(i)
                s.name = texts[Int(local.next() % UInt64(texts.count))]
                s.small = local.next() % 4 == 0 ? nil : Int16(local.next() % 5) - 2
                s.ratio = local.next() % 5 == 0 ? nil : Double(Int(local.next() % 7) - 3) / 2
                s.flag = local.next() % 3 == 0 ? nil : local.next() % 2 == 0
            }
        }
        try saved.performAndWait {
            fill(saved, 7)
            try saved.save()
        }
        unsaved.performAndWait { fill(unsaved, 7) }

        func randomPredicate(_ depth: Int) -> FetchPredicate<Sample> {
            switch rng.next() % (depth > 2 ? 6 : 9) {
            case 0: return \Sample.small == (rng.next() % 4 == 0 ? nil : Int16(rng.next() % 5) - 2)
            case 1: return \Sample.small != (rng.next() % 4 == 0 ? nil : Int16(rng.next() % 5) - 2)
            case 2: return \Sample.ratio < Double(Int(rng.next() % 7) - 3) / 2
            case 3: return \Sample.name >= texts[Int(rng.next() % UInt64(texts.count))]
            case 4: return .beginsWith(\.name, ["a", "", "B", "é"][Int(rng.next() % 4)])
            case 5: return .contains(\.name, ["b", "", "%", "_"][Int(rng.next() % 4)])
            case 6: return randomPredicate(depth + 1) && randomPredicate(depth + 1)
            case 7: return randomPredicate(depth + 1) || randomPredicate(depth + 1)
            default: return !randomPredicate(depth + 1)
            }
        }
        for _ in 0..<300 {
            let p = randomPredicate(0)
            let sorts = [FetchSortDescriptor(\Sample.name, ascending: rng.next() % 2 == 0), FetchSortDescriptor(\Sample.ratio), FetchSortDescriptor(\Sample.large)]
            let a = try saved.performAndWait { try saved.fetch(FetchRequest(predicate: p, sortDescriptors: sorts)).map { $0.large! } }
            let b = try unsaved.performAndWait { try unsaved.fetch(FetchRequest(predicate: p, sortDescriptors: sorts)).map { $0.large! } }
            #expect(a == b)
            if a != b { break }
        }
    }

    /// A NaN in a predicate compares as nil, in SQL and in memory alike: SQLite binds
    /// (and stores) a NaN as NULL, so `ratio != .nan` is `ratio != nil` in the store,
    /// and unsaved rows must select the same. Found by the predicate fuzzer
    /// (Tests/Fixtures/fuzz-regressions/predicate/nan-compares-as-null): the store
    /// returned every row for `NOT (date != NaN)`, memory none.
    @Test func aNaNInAPredicateComparesAsNil() throws {
        let stack = try TestStack()
        let otherStack = try TestStack()
        let saved = stack.privateContext()
        let unsaved = otherStack.privateContext()
        func fill(_ c: ManagedObjectContext) {
            for (i, ratio) in [1.5, nil, -2, 0].enumerated() {
                let s = Sample(context: c)
                s.large = Int64(i)
                s.ratio = ratio
            }
        }
        try saved.performAndWait {
            fill(saved)
            try saved.save()
        }
        unsaved.performAndWait { fill(unsaved) }
        let nan = Double.nan
        let predicates: [(FetchPredicate<Sample>, [Int64])] = [
            (\Sample.ratio != nan, [0, 2, 3]),
            (!(\Sample.ratio != nan), [1]),
            (\Sample.ratio == nan, [1]),
            (\Sample.ratio < nan, []),
            (!(\Sample.ratio >= nan), [0, 1, 2, 3]),
            ((\Sample.ratio).isIn([nan, 1.5]), [0]),
        ]
        for (p, expected) in predicates {
            let request = FetchRequest(predicate: p, sortDescriptors: [FetchSortDescriptor(\Sample.large)])
            let inSQL = try saved.performAndWait { try saved.fetch(request).map { $0.large! } }
            let inMemory = try unsaved.performAndWait { try unsaved.fetch(request).map { $0.large! } }
            #expect(inSQL == expected, "SQL, \(p)")
            #expect(inMemory == expected, "memory, \(p)")
        }
    }

    @Test func aBackgroundFetchRunsWhileTheViewContextSaves() async throws {
        let stack = try TestStack()
        let seedContext = stack.privateContext()
        try seedContext.performAndWait {
            for i in 0..<5_000 { Sample(context: seedContext).large = Int64(i) }
            try seedContext.save()
        }
        let view = ManagedObjectContext(concurrencyType: .mainQueue)
        view.persistentStoreCoordinator = stack.coordinator
        let background = stack.privateContext("background")
        async let saved: Int = view.perform {
            for round in 0..<20 {
                for i in 0..<200 { Sample(context: view).large = Int64(100_000 + round * 200 + i) }
                try view.save()
            }
            return try view.count(for: FetchRequest<Sample>())
        }
        async let fetched: Int = background.perform {
            var total = 0
            for _ in 0..<20 { total = try background.fetchObjectIDs(FetchRequest<Sample>(predicate: \Sample.large < 5_000)).count }
            return total
        }
        let (s, f) = try await (saved, fetched)
        #expect(s == 9_000)
        #expect(f == 5_000)
    }
}

