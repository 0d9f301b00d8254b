import Testing
@testable import FlagKit

/// Known-answer tests from FIPS 180-4 examples and `sha256sum`.
@Suite struct SHA256Tests {
    @Test func emptyInput() {
        #expect(SHA256.hexDigest([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func abc() {
        #expect(SHA256.hexDigest(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func twoBlockMessage() {
        let message = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        #expect(SHA256.hexDigest(Array(message.utf8)) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func incrementalEqualsOneShot() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var hasher = SHA256()
        hasher.update(bytes[0..<63])
        hasher.update(bytes[63..<64])
        hasher.update(bytes[64...])
        #expect(hasher.finalize() == SHA256.hash(bytes))
    }

    /// Arrays take the block fast path, lazy sequences the byte-by-byte one; both must agree.
    @Test func contiguousAndNonContiguousInputAgree() {
        for count in [0, 1, 55, 56, 63, 64, 65, 127, 128, 1000] {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
            let lazy = (0..<count).lazy.map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
            #expect(SHA256.hash(lazy) == SHA256.hash(bytes), "\(count) bytes")
        }
    }

    @Test func millionA() {
        #expect(SHA256.hexDigest([UInt8](repeating: 0x61, count: 1_000_000))
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
