import Foundation
import Testing
@testable import ClientHTTP
import TransportTestSupport

/// `Accept-Encoding: gzip` on each transport: the field reaches the server, and a gzip body is handed over decoded
/// (`HTTPTransport`'s contract; libcurl needs `CURLOPT_ACCEPT_ENCODING` for it, URLSession does it by itself).
@Suite struct HTTPTransportGzipTests {
    /// The body the gzip bytes below decode to.
    static let plain = "{\"gzip\":true,\"padding\":\"" + String(repeating: "a", count: 200) + "\"}"
    /// `gzip.compress(plain, mtime=0)` (Python), 49 bytes for 225.
    static let compressed: [UInt8] = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xab, 0x56, 0x4a, 0xaf, 0xca, 0x2c, 0x50, 0xb2, 0x2a,
        0x29, 0x2a, 0x4d, 0xd5, 0x51, 0x2a, 0x48, 0x4c, 0x49, 0xc9, 0xcc, 0x4b, 0x57, 0xb2, 0x52, 0x4a, 0x1c, 0x26, 0x40,
        0xa9, 0x16, 0x00, 0xad, 0x6c, 0x4e, 0xca, 0xe2, 0x00, 0x00, 0x00,
    ]

    static func gzipResponse() -> [UInt8] {
        Array(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nVary: Accept-Encoding\r\n"
            + "Content-Length: \(compressed.count)\r\nConnection: close\r\n\r\n").utf8) + compressed
    }

    @Test(arguments: TransportKind.allCases)
    func aGzipBodyIsHandedOverDecoded(_ kind: TransportKind) async throws {
        let server = try FaultServer(.reply(Self.gzipResponse()))
        defer { server.stop() }
        let transport = kind.makeTransport(options: TransportOptions(connectTimeout: .seconds(2), totalTimeout: .seconds(5),
                                                                     maxResponseBodyBytes: 1024))
        let response = try await transport.send(ClientRequest(url: server.url("/document"),
                                                              headers: [.accept: "application/json", .acceptEncoding: "gzip"]))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == Self.plain)
        let sent = try #require(server.requests.first).lowercased()
        #expect(sent.contains("\r\naccept-encoding: gzip"), "\(sent)")
        // One Accept-Encoding field, not the caller's and the library's.
        #expect(sent.components(separatedBy: "accept-encoding:").count == 2, "\(sent)")
    }

    @Test(arguments: TransportKind.allCases)
    func withoutAcceptEncodingNoCodingIsAskedFor(_ kind: TransportKind) async throws {
        let server = try FaultServer(.reply(FaultServer.response(status: 200, body: Self.plain)))
        defer { server.stop() }
        let transport = kind.makeTransport(options: TransportOptions())
        let response = try await transport.send(ClientRequest(url: server.url("/document")))
        #expect(String(decoding: response.body, as: UTF8.self) == Self.plain)
        if kind.isCurl {
            // URLSession may ask for codings of its own; libcurl asks for none unless told.
            #expect(!(try #require(server.requests.first)).lowercased().contains("accept-encoding"))
        }
    }
}
