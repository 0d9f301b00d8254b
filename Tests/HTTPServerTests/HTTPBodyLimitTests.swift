import RawHTTPClient
import Testing
@testable import HTTPServer

/// A path's own body limit, refused on the head like the global one.
@Suite struct HTTPBodyLimitTests {
    static let small = 64 * 1024

    static func routes(_ builder: inout HTTPRouter.Builder) {
        builder.add(.POST, "/small") { request, _ in .text("\(request.body.count)") }
        builder.add(.POST, "/large") { request, _ in .text("\(request.body.count)") }
        builder.limitBody(path: "/small", maxBytes: small)
    }

    @Test func appliesToItsPathAndBelowOnly() {
        let limits = [HTTPBodyLimit(path: "/v1/hooks", maxBytes: 10), HTTPBodyLimit(path: "/v1/hooks/tiny", maxBytes: 5)]
        #expect(limits.limit(for: "/v1/hooks") == 10)
        #expect(limits.limit(for: "/v1/hooks/other") == 10)
        #expect(limits.limit(for: "/v1/hooks/tiny") == 5)
        #expect(limits.limit(for: "/v1/hooksmith") == nil)
        #expect(limits.limit(for: "/v1") == nil)
        #expect([HTTPBodyLimit]().limit(for: "/v1/hooks") == nil)
    }

    @Test func aContentLengthPastThePathsLimitIsRefusedOnTheHeadUnread() async throws {
        try await withServer({ $0.limits.maxBodyBytes = 1024 * 1024 }, routes: Self.routes) { server, port in
            let client = try RawClient(port: port)
            // The head alone: the answer must come without a byte of the body.
            try client.send("POST /small HTTP/1.1\r\nHost: h\r\nContent-Length: \(Self.small + 1)\r\n\r\n")
            let refused = try #require(try client.readResponse())
            #expect(refused.status == 413)
            #expect(refused.text.contains("body_too_large"))
            #expect(refused.header("Connection") == "close")
            // Nothing of the budget was taken for it.
            #expect(server.core.bufferedBodyBytes.load(ordering: .relaxed) == 0)
            // With 100-continue the client is refused before it is told to send.
            let asking = try RawClient(port: port)
            try asking.send("POST /small HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: \(Self.small + 1)\r\n\r\n")
            #expect(try asking.readResponse()?.status == 413)
        }
    }

    @Test func aBodyAtThePathsLimitIsAcceptedAndOtherPathsKeepTheGlobalLimit() async throws {
        try await withServer({ $0.limits.maxBodyBytes = 1024 * 1024 }, routes: Self.routes) { _, port in
            let exact = try RawClient(port: port).request("POST", "/small", body: String(repeating: "a", count: Self.small))
            #expect(exact.status == 200 && exact.text == "\(Self.small)")
            let other = try RawClient(port: port).request("POST", "/large", body: String(repeating: "b", count: Self.small + 1))
            #expect(other.status == 200 && other.text == "\(Self.small + 1)")
            // The same connection's next request is held to its own path's limit again.
            let client = try RawClient(port: port)
            #expect(try client.request("POST", "/small", body: "x").text == "1")
            #expect(try client.request("POST", "/large", body: String(repeating: "c", count: Self.small + 2)).text == "\(Self.small + 2)")
        }
    }

    @Test func aChunkedBodyGrowingPastThePathsLimitIsRefused() async throws {
        try await withServer({ $0.limits.maxBodyBytes = 1024 * 1024 }, routes: Self.routes) { _, port in
            let within = try RawClient(port: port)
            let half = String(repeating: "a", count: Self.small / 2)
            let size = String(Self.small / 2, radix: 16)
            try within.send("POST /small HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\n\(half)\r\n\(size)\r\n\(half)\r\n0\r\n\r\n")
            #expect(try within.readResponse()?.text == "\(Self.small)")
            let past = try RawClient(port: port)
            try past.send("POST /small HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\n\(half)\r\n\(size)\r\n\(half)\r\n1\r\n")
            let refused = try #require(try past.readResponse())
            #expect(refused.status == 413)
            #expect(refused.text.contains("body_too_large"))
        }
    }

    @Test func theConfigurationCanLimitAPathToo() async throws {
        try await withServer({ $0.limits.bodyLimits = [HTTPBodyLimit(path: "/large", maxBytes: 10)] }, routes: Self.routes) { _, port in
            let client = try RawClient(port: port)
            try client.send("POST /large HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n")
            #expect(try client.readResponse()?.status == 413)
            #expect(try RawClient(port: port).request("POST", "/large", body: "0123456789").text == "10")
        }
    }
}
