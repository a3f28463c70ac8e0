import CtxdebugHelpers

/// The seeds of an exploration's runs, and which runs a worker (`-j N`) or a shard
/// (`--shard K/N`) takes, so that parallel workers and CI machines never run the same
/// schedule twice and together run the whole budget.
public enum ExplorationSeeds {
    /// The 64-bit golden ratio, SplitMix's increment: spreads consecutive iterations.
    public static let golden: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// The seed of run `iteration` of an exploration with seed `base`: the first output
    /// of `SplitMix(seed: base ^ (iteration · golden))` (wrapping multiplication). The
    /// same base and iteration give the same seed on every machine and worker.
    public static func seed(base: UInt64, iteration: Int) -> UInt64 {
        var generator = SplitMix(seed: base ^ (UInt64(truncatingIfNeeded: iteration) &* golden))
        return generator.next()
    }

    /// The iterations, in `0..<budget`, that worker `worker` of `workers` (0-based, `-j`)
    /// in shard `shard` of `shards` (1-based, `--shard K/N`) runs. A shard takes the
    /// iterations with `i % shards == shard - 1`; its workers deal those out in turn,
    /// so worker w takes the shard's w-th, (w+workers)-th, ... iteration. With one shard
    /// worker w takes w, w+N, w+2N, ...; with one worker shard K takes K-1, K-1+N, ...
    /// For every combination the sets are disjoint and cover the budget.
    public static func iterations(budget: Int, worker: Int = 0, workers: Int = 1, shard: Int = 1, shards: Int = 1) -> StrideTo<Int> {
        precondition(workers >= 1 && (0..<workers).contains(worker), "worker must be in 0..<workers")
        precondition(shards >= 1 && (1...shards).contains(shard), "shard must be in 1...shards")
        return stride(from: shard - 1 + shards * worker, to: max(budget, 0), by: shards * workers)
    }
}

/// `--shard K/N` as text: K and N, 1 ≤ K ≤ N.
public struct ShardSpec: Sendable, Equatable, CustomStringConvertible {
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    public init(parsing text: String) throws(ShardSpecError) {
        let parts = EnvironmentValue.trimmed(text).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, (1...count).contains(index) else {
            throw ShardSpecError(text: text)
        }
        self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }
}

/// A `--shard` value that is not K/N with 1 ≤ K ≤ N.
public struct ShardSpecError: Error, Sendable, Equatable, CustomStringConvertible {
    public var text: String
    public init(text: String) { self.text = text }
    public var description: String { "invalid shard '\(text)': expected K/N with 1 ≤ K ≤ N, as in --shard 2/4" }
}
