import FlagKit
import FlagStore
import Testing

/// The store's content hash (libcrypto) is the digest clients compute with FlagKit's Swift SHA-256.
@Suite struct FlagStoreContentHashTests {
    @Test func equalsFlagKitsDigestForEveryLength() {
        // Lengths around the 64-byte block and its padding boundary (55, 56, 64), and a multi-block document.
        for length in [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 70_000] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            #expect(FlagStore.contentHash(bytes) == SHA256.hexDigest(bytes), "length \(length)")
        }
        // FIPS 180-4's "abc" example.
        #expect(FlagStore.contentHash(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
