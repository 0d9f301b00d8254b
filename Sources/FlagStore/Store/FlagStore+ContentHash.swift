import CCrypto
import FlagKit

/// The content hash every version is stored and served under.
extension FlagStore {
    /// SHA-256 of `bytes` as 64 lowercase hex digits: the digest FlagKit's `SHA256.hexDigest` gives (what clients
    /// and `flagctl` compute), by OpenSSL's libcrypto, which uses the CPU's SHA instructions: every publish hashes
    /// its whole document on the writer's path, where a hash in Swift would be a large share of a flip
    /// (Benchmarks/RESULTS.md).
    public static func contentHash(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                ccrypto_sha256(input.baseAddress, input.count, output.baseAddress)
            }
        }
        return SHA256.hex(digest)
    }
}
