/// The simulations' randomness: SplitMix64 (Steele, Lea and Flood 2014), seeded, so every run draws the same numbers
/// and the printed figures are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1), 53 bits.
    mutating func uniform() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// A Poisson draw: Knuth's product of uniforms on pieces of at most 30 (a sum of Poissons is Poisson), so
    /// exp(−mean) never underflows.
    mutating func poisson(_ mean: Double) -> Int {
        var remaining = max(0, mean)
        var total = 0
        while remaining > 0 {
            let piece = min(remaining, 30)
            remaining -= piece
            let limit = Self.exp(-piece)
            var product = uniform()
            while product > limit {
                total += 1
                product *= uniform()
            }
        }
        return total
    }

    /// e^x for the simulation's small arguments, by the series on a reduced argument (no Foundation needed here).
    private static func exp(_ x: Double) -> Double {
        var reduced = x
        var squarings = 0
        while abs(reduced) > 0.5 { reduced /= 2; squarings += 1 }
        var term = 1.0
        var sum = 1.0
        for k in 1...20 {
            term *= reduced / Double(k)
            sum += term
        }
        for _ in 0..<squarings { sum *= sum }
        return sum
    }
}
