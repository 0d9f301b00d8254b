/// The rollout bucketing contract. It must never change: the server, the app and `flagctl` (and
/// clients on other platforms, see `docs/flag-document.md`) must put every install in the same bucket.
///
/// `hash = murmur3_x86_32(seed 0)` over the UTF-8 bytes of `salt + "/" + installId`;
/// `bucket = (UInt64(hash) * 100_000) >> 32`, in `0..<100_000`; an install is inside a rollout of
/// `p` percent when `bucket < p * 1000`.
public enum Bucketing {
    /// Number of buckets: 0.001 % steps.
    public static let bucketCount: UInt64 = 100_000

    /// The bucket of `unit` (the install id) for a flag whose salt (or key) is `salt`.
    public static func bucket(salt: String, unit: String) -> Int {
        bucket(forHash: hash(salt: salt, unit: unit))
    }

    /// Maps a 32-bit hash onto `0..<100_000` by multiply-shift, which is uniform and needs no division.
    public static func bucket(forHash hash: UInt32) -> Int {
        Int((UInt64(hash) &* bucketCount) >> 32)
    }

    /// `murmur3_x86_32` of the UTF-8 bytes of `salt + "/" + unit`, without building the joined string.
    public static func hash(salt: String, unit: String) -> UInt32 {
        var salt = salt
        var unit = unit
        return salt.withUTF8 { saltBytes in
            unit.withUTF8 { unitBytes in
                var hasher = Murmur3x86_32(seed: 0)
                hasher.update(saltBytes)
                hasher.update(CollectionOfOne(UInt8(ascii: "/")))
                hasher.update(unitBytes)
                return hasher.finalize()
            }
        }
    }
}

/// MurmurHash3 x86_32 (Austin Appleby's public-domain reference), fed incrementally.
public struct Murmur3x86_32: Sendable {
    private static let c1: UInt32 = 0xcc9e_2d51
    private static let c2: UInt32 = 0x1b87_3593

    private var state: UInt32
    private var tail: UInt32 = 0
    private var tailCount = 0
    private var length: UInt32 = 0

    /// A hasher with the given seed.
    public init(seed: UInt32) { state = seed }

    /// The hash of `bytes` in one call.
    public static func hash<Bytes: Sequence>(_ bytes: Bytes, seed: UInt32 = 0) -> UInt32 where Bytes.Element == UInt8 {
        var hasher = Murmur3x86_32(seed: seed)
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// Feeds bytes; blocks are little-endian 32-bit words, as in the reference.
    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes {
            tail |= UInt32(byte) << (8 * UInt32(tailCount))
            tailCount += 1
            length &+= 1
            if tailCount == 4 {
                state ^= Self.mixBlock(tail)
                state = (state << 13 | state >> 19) &* 5 &+ 0xe654_6b64
                tail = 0
                tailCount = 0
            }
        }
    }

    /// Mixes the remaining bytes and the length, and applies the finalizer.
    public func finalize() -> UInt32 {
        var hash = state
        if tailCount > 0 { hash ^= Self.mixBlock(tail) }
        hash ^= length
        hash ^= hash >> 16
        hash &*= 0x85eb_ca6b
        hash ^= hash >> 13
        hash &*= 0xc2b2_ae35
        hash ^= hash >> 16
        return hash
    }

    @inline(__always) private static func mixBlock(_ block: UInt32) -> UInt32 {
        var k = block &* c1
        k = k << 15 | k >> 17
        return k &* c2
    }
}
