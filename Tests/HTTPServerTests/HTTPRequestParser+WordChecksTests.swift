import Testing
@testable import HTTPServer

@Suite struct HTTPRequestParserWordChecksTests {
    /// The eight-bytes-at-a-time checks of the target and of field values against their byte-by-byte definitions.
    @Test func wordChecksAgreeWithByteChecks() {
        var generator = SystemRandomNumberGenerator()
        let interesting: [UInt8] = [0x00, 0x09, 0x0A, 0x1F, 0x20, 0x21, 0x3F, 0x41, 0x7E, 0x7F, 0x80, 0xC3, 0xFF]
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...40, using: &generator)
            let bytes: [UInt8] = (0..<count).map { _ in
                Bool.random(using: &generator) ? interesting.randomElement(using: &generator) ?? 0x41 : UInt8.random(in: 0x21...0x7E, using: &generator)
            }
            let expectedTarget: Int? = bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F } ? (bytes.firstIndex(of: 0x3F) ?? -1) : nil
            let expectedValue = !bytes.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
            bytes.withUnsafeBytes { raw in
                #expect(HTTPRequestParser.firstQuestionMark(visibleASCII: raw) == expectedTarget, "\(bytes)")
                #expect(HTTPRequestParser.isFieldValue(raw) == expectedValue, "\(bytes)")
            }
        }
    }
}
