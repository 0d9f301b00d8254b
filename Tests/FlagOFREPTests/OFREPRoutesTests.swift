import FlagKit
import HTTPServer
import RawHTTPClient
import Synchronization
import TestSupport
import Testing
@testable import FlagOFREP

/// Real HTTP: a server on 127.0.0.1 port 0 with only the OFREP routes, a raw socket client.
@Suite struct OFREPRoutesTests {
    static let english = #"{"context":{"targetingKey":"A1B2C3D4-0000-4000-8000-000000000042","locale":"en-US"}}"#

    func configuration(authorize: (@Sendable (HTTPRequest, String) -> OFREPAccess)? = nil,
                       limiter: TokenBucketRateLimiter? = nil, proxies: HTTPTrustedProxies = .none) throws -> OFREPRouteConfiguration {
        let snapshots = ["test": try Fixtures.allTypes(), "production": try Fixtures.production()]
        return OFREPRouteConfiguration(defaultEnvironment: "test", snapshot: { snapshots[$0] }, authorize: authorize, rateLimiter: limiter,
                                       trustedProxies: proxies)
    }

    func parse(_ response: RawClient.Response) throws -> [String: JSONValue] {
        try #require(try JSONParser.parse(response.body).value.objectValue)
    }

    @Test func singleFlagOverHTTP() throws {
        try withOFREPServer(try configuration()) { port in
            let client = try RawClient(port: port)
            let response = try client.request("POST", "/ofrep/v1/evaluate/flags/greeting", body: Self.english)
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            #expect(try parse(response)["value"] == "Hello")
            #expect(try parse(response)["metadata"] == ["environment": "test", "version": 12])
            // Keep-alive: a second request on the same connection.
            let missing = try client.request("POST", "/ofrep/v1/evaluate/flags/nope", body: Self.english)
            #expect(missing.status == 404)
            #expect(try parse(missing)["errorCode"] == "FLAG_NOT_FOUND")
        }
    }

    @Test func environmentInThePathSelectsTheSnapshot() throws {
        try withOFREPServer(try configuration()) { port in
            let client = try RawClient(port: port)
            let production = try client.request(
                "POST", "/v1/environments/production/ofrep/v1/evaluate/flags/monetizationEnabled", body: #"{"context":{}}"#)
            #expect(production.status == 200)
            #expect(try parse(production)["metadata"] == ["environment": "production", "version": 3])
            let unknown = try client.request("POST", "/v1/environments/nowhere/ofrep/v1/evaluate/flags/x", body: #"{"context":{}}"#)
            #expect(unknown.status == 404)
            #expect(try parse(unknown)["errorCode"] == "FLAG_NOT_FOUND")
            #expect(try parse(unknown)["errorDetails"]?.stringValue?.contains("nowhere") == true)
            let unknownBulk = try client.request("POST", "/v1/environments/nowhere/ofrep/v1/evaluate/flags", body: #"{"context":{}}"#)
            #expect(unknownBulk.status == 404)
        }
    }

    @Test func bulkWithETagAnd304() throws {
        try withOFREPServer(try configuration()) { port in
            let client = try RawClient(port: port)
            let first = try client.request("POST", "/ofrep/v1/evaluate/flags", body: Self.english)
            #expect(first.status == 200)
            let etag = try #require(first.header("ETag"))
            #expect(try parse(first)["flags"]?.arrayValue?.count == 12)
            let second = try client.request("POST", "/ofrep/v1/evaluate/flags", body: Self.english, headers: [("If-None-Match", etag)])
            #expect(second.status == 304)
            #expect(second.body.isEmpty)
            #expect(second.header("ETag") == etag)
            let other = try client.request("POST", "/ofrep/v1/evaluate/flags", body: #"{"context":{"targetingKey":"x"}}"#,
                                           headers: [("If-None-Match", etag)])
            #expect(other.status == 200)
        }
    }

    @Test func malformedBodiesAre400() throws {
        try withOFREPServer(try configuration()) { port in
            let client = try RawClient(port: port)
            let parse400 = try client.request("POST", "/ofrep/v1/evaluate/flags/greeting", body: "{nope")
            #expect(parse400.status == 400)
            #expect(try parse(parse400)["errorCode"] == "PARSE_ERROR")
            let bulk400 = try client.request("POST", "/ofrep/v1/evaluate/flags", body: #"{"context":[]}"#)
            #expect(bulk400.status == 400)
            #expect(try parse(bulk400)["errorCode"] == "INVALID_CONTEXT")
            let key400 = try client.request("POST", "/ofrep/v1/evaluate/flags/rolloutBool", body: #"{"context":{"locale":"en"}}"#)
            #expect(key400.status == 400)
            #expect(try parse(key400)["errorCode"] == "TARGETING_KEY_MISSING")
        }
    }

    @Test func bulkRefusesAMalformedLastModifiedQuery() throws {
        try withOFREPServer(try configuration()) { port in
            let client = try RawClient(port: port)
            let bad = try client.request("POST", "/ofrep/v1/evaluate/flags?flagConfigLastModified=false", body: Self.english)
            #expect(bad.status == 400)
            #expect(try parse(bad)["errorCode"] == "PARSE_ERROR")
            let good = try client.request("POST", "/ofrep/v1/evaluate/flags?flagConfigEtag=x&flagConfigLastModified=1771622898",
                                          body: Self.english)
            #expect(good.status == 200)
        }
    }

    @Test func otherMethodsAre405WithAllow() throws {
        try withOFREPServer(try configuration()) { port in
            let response = try RawClient(port: port).request("GET", "/ofrep/v1/evaluate/flags/greeting")
            #expect(response.status == 405)
            #expect(response.header("Allow") == "POST")
        }
    }

    @Test func percentEncodedKeysAreDecoded() throws {
        try withOFREPServer(try configuration()) { port in
            let response = try RawClient(port: port).request("POST", "/ofrep/v1/evaluate/flags/%67reeting", body: Self.english)
            #expect(response.status == 200)
            #expect(try parse(response)["key"] == "greeting")
        }
    }

    @Test func authorizationGives401And403() throws {
        let authorize: @Sendable (HTTPRequest, String) -> OFREPAccess = { request, environment in
            switch HTTPBearerCredentials(request.headers).token {
            case nil: .unauthorized("token required")
            case "reader-all": .allowed
            case "reader-test": environment == "test" ? .allowed : .forbidden("test only")
            default: .unauthorized("unknown token")
            }
        }
        try withOFREPServer(try configuration(authorize: authorize)) { port in
            // Refused from the head, before the body is read: each refusal closes its connection.
            let noneClient = try RawClient(port: port)
            let none = try noneClient.request("POST", "/ofrep/v1/evaluate/flags/greeting", body: Self.english)
            #expect(none.status == 401)
            #expect(none.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            #expect(none.header("Connection") == "close")
            let wrong = try RawClient(port: port).request("POST", "/ofrep/v1/evaluate/flags/greeting", body: Self.english,
                                                          headers: [("Authorization", "Bearer guess")])
            #expect(wrong.status == 401)
            let forbidden = try RawClient(port: port).request(
                "POST", "/v1/environments/production/ofrep/v1/evaluate/flags/monetizationEnabled",
                body: Self.english, headers: [("Authorization", "Bearer reader-test")])
            #expect(forbidden.status == 403)
            let client = try RawClient(port: port)
            let ok = try client.request("POST", "/ofrep/v1/evaluate/flags/greeting", body: Self.english,
                                        headers: [("Authorization", "bearer reader-test")])
            #expect(ok.status == 200)
            #expect(try client.request("POST", "/ofrep/v1/evaluate/flags/greeting", body: Self.english,
                                       headers: [("Authorization", "Bearer reader-all")]).status == 200, "an accepted one keeps it open")
        }
    }

    /// The head check runs the authorizer once, before the body: an unknown credential with a body announced
    /// but never sent is answered at once, and an accepted head is not authorized a second time.
    @Test func credentialsAreCheckedFromTheHeadOnce() throws {
        let calls = Mutex(0)
        let authorize: @Sendable (HTTPRequest, String) -> OFREPAccess = { request, _ in
            calls.withLock { $0 += 1 }
            return HTTPBearerCredentials(request.headers).token == "good" ? .allowed : .unauthorized("unknown token")
        }
        try withOFREPServer(try configuration(authorize: authorize)) { port in
            let client = try RawClient(port: port, timeoutSeconds: 5)
            try client.send("POST /ofrep/v1/evaluate/flags/greeting HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer guess\r\n"
                + "Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n")
            #expect(try client.readResponse()?.status == 401)
            #expect(calls.withLock { $0 } == 1)
            let ok = try RawClient(port: port).request("POST", "/ofrep/v1/evaluate/flags/greeting", body: Self.english,
                                                       headers: [("Authorization", "Bearer good")])
            #expect(ok.status == 200)
            #expect(calls.withLock { $0 } == 2, "not authorized again after the head")
        }
    }

    @Test func rateLimitGives429WithRetryAfterPerClient() throws {
        let clock = ManualClock()
        let limiter = try #require(TokenBucketRateLimiter(rate: 1, burst: 2, now: clock.nanoseconds))
        try withOFREPServer(try configuration(limiter: limiter)) { port in
            let client = try RawClient(port: port)
            for _ in 0..<2 {
                #expect(try client.request("POST", "/ofrep/v1/evaluate/flags/greeting", body: Self.english).status == 200)
            }
            let limited = try client.request("POST", "/ofrep/v1/evaluate/flags/greeting", body: Self.english)
            #expect(limited.status == 429)
            #expect(limited.header("Retry-After") == "1")
            // Without an authorizer a token is only text the client chose: an invented one per request
            // must not get a fresh bucket, and neither must an invented X-API-Key or X-Forwarded-For.
            for headers in [[("Authorization", "Bearer invented-1")], [("X-API-Key", "invented-2")], [("X-Forwarded-For", "10.9.8.7")]] {
                let invented = try client.request("POST", "/ofrep/v1/evaluate/flags/greeting", body: Self.english, headers: headers)
                #expect(invented.status == 429, "\(headers)")
            }
            clock.advance(seconds: 1)
            #expect(try client.request("POST", "/ofrep/v1/evaluate/flags", body: Self.english).status == 200)
        }
    }

    @Test func verifiedTokensAndForwardedAddressesFromTrustedProxiesGetTheirOwnBuckets() throws {
        let clock = ManualClock()
        /// The status of each request, one header set each, against a fresh 1-request bucket per client.
        func statuses(_ requests: [(String, String)], authorize: (@Sendable (HTTPRequest, String) -> OFREPAccess)? = nil,
                      proxies: HTTPTrustedProxies = .none) throws -> [Int] {
            let limiter = try #require(TokenBucketRateLimiter(rate: 1, burst: 1, now: clock.nanoseconds))
            return try withOFREPServer(try configuration(authorize: authorize, limiter: limiter, proxies: proxies)) { port in
                let client = try RawClient(port: port)
                return try requests.map { try client.request("POST", "/ofrep/v1/evaluate/flags/greeting", body: Self.english, headers: [$0]).status }
            }
        }
        let authorize: @Sendable (HTTPRequest, String) -> OFREPAccess = { request, _ in
            HTTPBearerCredentials(request.headers).token.map { $0.hasPrefix("good") } == true ? .allowed : .unauthorized("unknown token")
        }
        let tokens = ["good-1", "good-2", "good-1"].map { ("Authorization", "Bearer \($0)") }
        #expect(try statuses(tokens, authorize: authorize) == [200, 200, 429])
        // What a client wrote to the left of the proxy's entry is not believed: the third is 203.0.113.1 again.
        let forwarded = ["203.0.113.1, 127.0.0.1", "203.0.113.2, 127.0.0.1", "198.51.100.9, 203.0.113.1"].map { ("X-Forwarded-For", $0) }
        #expect(try statuses(forwarded, proxies: try #require(HTTPTrustedProxies(["127.0.0.1"]))) == [200, 200, 429])
    }

    @Test func clientKeyTrustsOnlyVerifiedTokens() {
        let context = HTTPRequestContext()
        let bearer = HTTPRequest(method: .POST, target: "/", headers: ["Authorization": "Bearer t"])
        #expect(OFREPRoutes.clientKey(bearer, context, tokenVerified: true) == "bearer t")
        #expect(OFREPRoutes.clientKey(bearer, context, tokenVerified: false).hasPrefix("address "))
        #expect(OFREPRoutes.clientKey(HTTPRequest(method: .POST, target: "/", headers: ["X-API-Key": "k"]), context, tokenVerified: true) == "api-key k")
        #expect(OFREPRoutes.clientKey(HTTPRequest(method: .POST, target: "/"), context, tokenVerified: true).hasPrefix("address "))
        #expect(OFREPRoutes.clientKey(HTTPRequest(method: .POST, target: "/", headers: ["Authorization": "Basic abc"]), context,
                                      tokenVerified: true).hasPrefix("address "))
        #expect(HTTPBearerCredentials(HTTPRequest(method: .POST, target: "/", headers: ["Authorization": "Basic abc"]).headers).token == nil)
        #expect(HTTPBearerCredentials(HTTPRequest(method: .POST, target: "/", headers: ["Authorization": "Bearer "]).headers).token == nil)
    }
}
