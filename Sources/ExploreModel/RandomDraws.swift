import CtxdebugHelpers

extension SplitMix {
    /// A uniform integer in `0..<bound` (bound ≥ 1), by Lemire's multiply-and-reject
    /// method, written here rather than taken from `Int.random(in:using:)` so that the
    /// same seed gives the same draws with every toolchain.
    mutating func uniform(below bound: Int) -> Int {
        precondition(bound > 0, "uniform(below:) needs a positive bound")
        let range = UInt64(bound)
        var product = next().multipliedFullWidth(by: range)
        if product.low < range {
            let threshold = (0 &- range) % range
            while product.low < threshold { product = next().multipliedFullWidth(by: range) }
        }
        return Int(product.high)
    }
}
