import Glibc

extension HTTPRequestParser {
    /// The strings of a connection's last request-target. Keep-alive clients ask for the same target again and
    /// again (an app polling its document, a proxy's upstream connection): comparing the bytes costs less than
    /// decoding them into new strings (an allocation for any target over 15 bytes).
    struct TargetCache {
        /// Targets up to this long are remembered.
        static let capacity = 64
        var last: (target: String, path: String, query: String?)?
        /// The last target's bytes, inline (no allocation, one `memcmp`).
        var length = -1
        var bytes: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)

        /// The strings of the last target when `bytes` are its bytes.
        func strings(for target: UnsafeRawBufferPointer) -> (target: String, path: String, query: String?)? {
            guard target.count == length, let source = target.baseAddress else { return nil }
            let same = withUnsafeBytes(of: bytes) { cached in
                guard let base = cached.baseAddress else { return false }
                return memcmp(base, source, target.count) == 0
            }
            return same ? last : nil
        }

        /// Remembers an origin-form target (its bytes) and its parts.
        mutating func remember(_ targetBytes: UnsafeRawBufferPointer, target: String, path: String, query: String?) {
            guard targetBytes.count <= TargetCache.capacity else {
                length = -1
                last = nil
                return
            }
            withUnsafeMutableBytes(of: &bytes) { $0.copyMemory(from: targetBytes) }
            length = targetBytes.count
            last = (target, path, query)
        }
    }
}
