import Foundation
import Testing
@testable import ClientHTTP
import TransportTestSupport

@Suite struct PEMCertificatesTests {
    @Test func readsTheFixtureCA() throws {
        let text = try String(contentsOfFile: TLSServer.caFile, encoding: .utf8)
        let certificates = PEMCertificates.der(fromPEM: text)
        #expect(certificates.count == 1)
        // A DER certificate is a SEQUENCE with a two-byte long-form length.
        #expect(certificates.first.map { Array($0.prefix(2)) } == [0x30, 0x82])
    }

    @Test func keepsEveryCertificateInOrderAndSkipsOtherBlocks() {
        let one = Data([0x30, 0x03, 0x02, 0x01, 0x01]).base64EncodedString()
        let two = Data([0x30, 0x03, 0x02, 0x01, 0x02]).base64EncodedString()
        let text = """
            a comment line
            -----BEGIN PRIVATE KEY-----
            \(Data([9, 9]).base64EncodedString())
            -----END PRIVATE KEY-----
            -----BEGIN CERTIFICATE-----
            \(one)
            -----END CERTIFICATE-----
            \r
            -----BEGIN CERTIFICATE-----\r
            \(two.prefix(4))
            \(two.dropFirst(4))
            -----END CERTIFICATE-----
            """
        #expect(PEMCertificates.der(fromPEM: text) == [Data([0x30, 0x03, 0x02, 0x01, 0x01]), Data([0x30, 0x03, 0x02, 0x01, 0x02])])
    }

    @Test(arguments: ["", "no pem here", "-----BEGIN CERTIFICATE-----\n!!!not base64!!!\n-----END CERTIFICATE-----",
                      "-----BEGIN CERTIFICATE-----\nMAMCAQE=\n"])
    func nothingUsableIsNoCertificate(_ text: String) {
        #expect(PEMCertificates.der(fromPEM: text).isEmpty)
    }
}
