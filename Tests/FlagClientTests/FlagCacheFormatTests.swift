import Foundation
import Testing
@testable import FlagClient

@Suite struct FlagCacheFormatTests {
    @Test func fnv1a64ReferenceValues() {
        // Published FNV-1a 64 test vectors.
        #expect(FlagCacheFormat.fnv1a64(Array("".utf8)[...]) == 0xcbf2_9ce4_8422_2325)
        #expect(FlagCacheFormat.fnv1a64(Array("a".utf8)[...]) == 0xaf63_dc4c_8601_ec8c)
        #expect(FlagCacheFormat.fnv1a64(Array("foobar".utf8)[...]) == 0x8594_4171_f739_67e8)
        #expect(FlagCacheFormat.fnv1a64(Array("foo".utf8)[...], Array("bar".utf8)[...]) == FlagCacheFormat.fnv1a64(Array("foobar".utf8)[...]))
    }

    @Test func headerIsOneReadableLine() throws {
        let entry = FlagCacheEntry(environment: "production", etag: "\"e\"", version: 3,
                                   fetchedAt: Date(timeIntervalSince1970: 1), document: Data("{}".utf8))
        let bytes = FlagCacheFormat.encode(entry)
        let newline = try #require(bytes.firstIndex(of: 10))
        let header = String(decoding: bytes[..<newline], as: UTF8.self).split(separator: " ")
        #expect(header.count == 5)
        #expect(header[0] == "SYMI-FLAG-CACHE" && header[1] == "1" && header[2].count == 16 && header[4] == "2")
        #expect(FlagCacheFormat.decode(bytes, environment: "production") == .success(entry))
    }

    @Test func damagedHeaderFieldsAreNamed() {
        let bad = Array("SYMI-FLAG-CACHE 1 zz 3 4\n{}{}xxx".utf8)
        guard case .failure(.corruptHeader) = FlagCacheFormat.decode(bad, environment: "p") else {
            Issue.record("expected a corrupt header")
            return
        }
        let huge = Array("SYMI-FLAG-CACHE 1 0000000000000000 \(Int.max) 4\n".utf8)
        guard case .failure(.corruptHeader("lengths overflow")) = FlagCacheFormat.decode(huge, environment: "p") else {
            Issue.record("expected an overflow to be refused")
            return
        }
    }
}
