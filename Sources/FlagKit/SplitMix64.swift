/// SplitMix64 (Steele, Lea, Flood 2014; the seeding generator of Java's SplittableRandom): tiny,
/// fast, and the same numbers on every platform for a seed, which makes samples reproducible.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator for a seed.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` by Lemire's multiply-high, without modulo bias worth mentioning.
    public mutating func next(below bound: Int) -> Int {
        Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// A random version-4 UUID string in upper case, like iOS's `identifierForVendor`.
    ///
    /// Written into the string's own storage without temporary arrays: a preview on the server generates
    /// 100,000 of these per sample, and in a debug build each small array cost more than the rest.
    public mutating func nextInstallId() -> String {
        let high = (next() & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let low = (next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var count = 0
            for position in 0..<32 {
                if position == 8 || position == 12 || position == 16 || position == 20 {
                    buffer[count] = UInt8(ascii: "-")
                    count += 1
                }
                let word = position < 16 ? high : low
                let nibble = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * (position & 15))) & 0xF
                buffer[count] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
                count += 1
            }
            return count
        }
    }
}
