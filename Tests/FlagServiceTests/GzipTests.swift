@testable import FlagService
import FlagServiceTestSupport
import Testing

/// zlib's gzip through `Gzip`: what is compressed decodes to the same bytes; what is not gzip is refused.
@Suite struct GzipTests {
    @Test func compressedBytesDecodeToTheOriginal() throws {
        for input in [[UInt8](), Array("{}".utf8), Array(String(repeating: "{\"flag\":true},", count: 2000).utf8),
                      (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }] {
            let compressed = try #require(Gzip.compress(input))
            #expect(compressed.starts(with: [0x1f, 0x8b]), "a gzip member (RFC 1952 §2.3.1)")
            #expect(Gzip.decompress(compressed) == input)
        }
        let repetitive = Array(String(repeating: "{\"flag\":true},", count: 2000).utf8)
        #expect(try #require(Gzip.compress(repetitive)).count < repetitive.count / 20)
    }

    @Test func garbageTruncationAndOversizeAreRefused() throws {
        let compressed = try #require(Gzip.compress(Array(String(repeating: "abc", count: 1000).utf8)))
        #expect(Gzip.decompress(Array("not gzip".utf8)) == nil)
        #expect(Gzip.decompress(Array(compressed.dropLast(4))) == nil)
        #expect(Gzip.decompress(compressed + [0x00]) == nil, "bytes after the member")
        #expect(Gzip.decompress(compressed, limit: 100) == nil)
    }
}
