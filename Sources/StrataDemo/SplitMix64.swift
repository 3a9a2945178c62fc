/// SplitMix64 (Steele, Lea and Flood, 2014), as `Scripts/generate-demo-data.py` uses: a small
/// seeded generator that gives the same sequence for the same seed on every platform and Swift
/// version. It generates the scaled demo data, and the tests' seeded inputs, so that a failure
/// reproduces from its seed. Not for secrets.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is decided by `seed` alone.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `0..<n`, without the bias of `next() % n` (a draw from the few values past the
    /// last whole multiple of `n` is drawn again), as the demo data generator draws.
    public mutating func below(_ n: Int) -> Int {
        precondition(n > 0)
        let bound = UInt64(n)
        let limit = UInt64.max - UInt64.max % bound
        while true {
            let x = next()
            if x < limit { return Int(x % bound) }
        }
    }
}
