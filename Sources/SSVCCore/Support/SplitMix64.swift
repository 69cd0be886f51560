/// SplitMix64 (Steele, Lea and Flood, 2014): a small, fast generator of
/// statistically good 64-bit numbers, not for secrets. From a fixed seed
/// it gives the same numbers on every run (the benchmark's machines).
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// Its finalizer: every bit of `value` spread over every bit of the result.
    package static func mix(_ value: UInt64) -> UInt64 {
        var mixed = value
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
