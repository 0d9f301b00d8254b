import Foundation
import Testing
@testable import FlagKit

@Suite struct BucketingTests {
    struct Vector: Decodable {
        let salt: String
        let unit: String
        let hash: UInt32
        let bucket: Int
    }

    struct VectorFile: Decodable {
        let vectors: [Vector]
    }

    static func vectors(_ path: String) throws -> [Vector] {
        try JSONDecoder().decode(VectorFile.self, from: Data(TestSupport.bytes(path))).vectors
    }

    @Test func reproducesEveryReferenceVector() throws {
        let vectors = try Self.vectors("Tests/FlagKitTests/Fixtures/bucketing-reference.json")
        #expect(vectors.count == 21)
        for vector in vectors {
            #expect(Bucketing.hash(salt: vector.salt, unit: vector.unit) == vector.hash, "\(vector.salt)/\(vector.unit)")
            #expect(Bucketing.bucket(salt: vector.salt, unit: vector.unit) == vector.bucket, "\(vector.salt)/\(vector.unit)")
        }
    }

    /// The reference file is a copy of the shared one, kept in the repo so the tests stand alone;
    /// where the shared file is beside the checkout, the copy must not have drifted.
    @Test func referenceCopyMatchesTheSharedVectors() throws {
        let shared = TestSupport.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/vectors/bucketing.json")
        guard let sharedBytes = FileManager.default.contents(atPath: shared.path) else { return }
        #expect([UInt8](sharedBytes) == (try TestSupport.bytes("Tests/FlagKitTests/Fixtures/bucketing-reference.json")))
    }

    /// `docs/bucketing-vectors.json` is what other platforms implement against; it must match this code.
    @Test func publishedVectorsMatchThisImplementation() throws {
        let vectors = try Self.vectors("docs/bucketing-vectors.json")
        #expect(vectors.count >= 20)
        for vector in vectors {
            #expect(Bucketing.hash(salt: vector.salt, unit: vector.unit) == vector.hash, "\(vector.salt)/\(vector.unit)")
            #expect(Bucketing.bucket(salt: vector.salt, unit: vector.unit) == vector.bucket, "\(vector.salt)/\(vector.unit)")
        }
    }

    @Test func murmurMatchesTheReferenceImplementationsKnownAnswers() {
        // Known answers of MurmurHash3_x86_32 (SMHasher's verification set and common test suites).
        #expect(Murmur3x86_32.hash([UInt8]()) == 0)
        #expect(Murmur3x86_32.hash([UInt8](), seed: 1) == 0x514E_28B7)
        #expect(Murmur3x86_32.hash([UInt8](), seed: 0xFFFF_FFFF) == 0x81F1_6F39)
        #expect(Murmur3x86_32.hash([0xFF, 0xFF, 0xFF, 0xFF]) == 0x7629_3B50)
        #expect(Murmur3x86_32.hash([0x21, 0x43, 0x65, 0x87]) == 0xF55B_516B)
        #expect(Murmur3x86_32.hash([0x21, 0x43, 0x65]) == 0x7E4A_8634)
        #expect(Murmur3x86_32.hash([0x21, 0x43]) == 0xA0F7_B07A)
        #expect(Murmur3x86_32.hash([0x21]) == 0x7266_1CF4)
        #expect(Murmur3x86_32.hash(Array("Hello, world!".utf8), seed: 1234) == 0xFAF6_CDB3)
    }

    @Test func bucketsSpreadEvenly() {
        var counts = [Int](repeating: 0, count: 10)
        for index in 0..<100_000 { counts[Bucketing.bucket(salt: "flag", unit: "install-\(index)") / 10_000] += 1 }
        for count in counts { #expect((9_500...10_500).contains(count), "\(counts)") }
    }

    @Test func bucketBoundsAreExact() {
        #expect(Bucketing.bucket(forHash: 0) == 0)
        #expect(Bucketing.bucket(forHash: UInt32.max) == 99_999)
    }
}
