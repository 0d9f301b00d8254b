import FlagKit
import HTTPServer
import RawHTTPClient
import Testing
@testable import FlagOFREP

/// The bulk response's `eventStreams` (and `refreshConnections`) entry, and the re-fetch hints it causes.
@Suite struct OFREPEventStreamTests {
    static let body = #"{"context":{"targetingKey":"A1B2C3D4-0000-4000-8000-000000000042"}}"#

    func configuration(proxies: HTTPTrustedProxies = .none) throws -> OFREPRouteConfiguration {
        let snapshots = ["test": try Fixtures.allTypes()]
        var configuration = OFREPRouteConfiguration(defaultEnvironment: "test", snapshot: { snapshots[$0] }, trustedProxies: proxies)
        configuration.eventStreamPath = { "/v1/environments/\($0)/events" }
        configuration.inactivityDelaySec = 90
        return configuration
    }

    @Test func theBulkAnswerNamesTheEnvironmentsStreamUnderBothNames() throws {
        try withOFREPServer(try configuration()) { port in
            let response = try RawClient(port: port).request("POST", "/ofrep/v1/evaluate/flags", body: Self.body)
            #expect(response.status == 200)
            let object = try #require(try JSONParser.parse(response.body).value.objectValue)
            let expected: JSONValue = [["type": "sse", "url": "http://127.0.0.1/v1/environments/test/events", "inactivityDelaySec": 90]]
            #expect(object["eventStreams"] == expected)
            #expect(object["refreshConnections"] == expected)
            #expect(object["flags"]?.arrayValue?.isEmpty == false)
        }
    }

    @Test func withoutAStreamPathNothingIsAnnounced() throws {
        var plain = try configuration()
        plain.eventStreamPath = nil
        try withOFREPServer(plain) { port in
            let response = try RawClient(port: port).request("POST", "/ofrep/v1/evaluate/flags", body: Self.body)
            let object = try #require(try JSONParser.parse(response.body).value.objectValue)
            #expect(object["eventStreams"] == nil && object["refreshConnections"] == nil)
        }
    }

    @Test func theRefetchHintsOfTheSpecAndOfTheIssueAreAccepted() throws {
        try withOFREPServer(try configuration()) { port in
            let client = try RawClient(port: port)
            for query in ["flagConfigEtag=%2212-ab%22&flagConfigLastModified=1771622898", "sseEtag=x&sseLastModified=1771622898",
                          "sseLastModified=2026-02-20T21:28:18Z"] {
                #expect(try client.request("POST", "/ofrep/v1/evaluate/flags?" + query, body: Self.body).status == 200, "\(query)")
            }
        }
    }

    @Test func theURLIsHTTPSOnlyWhenATrustedProxySaysSo() throws {
        func url(_ proxies: HTTPTrustedProxies) throws -> JSONValue? {
            try withOFREPServer(try configuration(proxies: proxies)) { port in
                let response = try RawClient(port: port).request("POST", "/ofrep/v1/evaluate/flags", body: Self.body,
                                                                 headers: [("X-Forwarded-Proto", "https")])
                return try JSONParser.parse(response.body).value.objectValue?["eventStreams"]?.arrayValue?.first?.objectValue?["url"]
            }
        }
        #expect(try url(try #require(HTTPTrustedProxies(["127.0.0.1"]))) == "https://127.0.0.1/v1/environments/test/events")
        #expect(try url(.none) == "http://127.0.0.1/v1/environments/test/events")
    }

    @Test func withoutAHostTheURLIsThePath() {
        let request = HTTPRequest(method: .POST, target: "/ofrep/v1/evaluate/flags", version: HTTPVersion(major: 1, minor: 0))
        let stream = OFREPEventStream.forRequest(request, peer: .unspecified, path: "/e", proxies: .none, inactivityDelaySec: 120)
        #expect(stream == OFREPEventStream(url: "/e"))
    }
}
