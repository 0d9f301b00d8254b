/// Always the same value: 0 makes full jitter pick 0, `UInt64.max` makes it pick (just below) the ceiling.
struct FixedRandom: RandomNumberGenerator {
    /// The value every call returns.
    var value: UInt64
    mutating func next() -> UInt64 { value }
}

/// SplitMix64: a seeded generator, so "random" tests are reproducible and cannot flake.
struct SeededRandom: RandomNumberGenerator {
    /// The generator state.
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
