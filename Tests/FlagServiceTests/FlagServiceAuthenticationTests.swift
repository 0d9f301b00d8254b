import FlagService
import FlagServiceTestSupport
import Foundation
import HTTPServer
import TestSupport
import Testing

/// Failed authentication: logged without the token, throttled per client address.
@Suite struct FlagServiceAuthenticationTests {
    static let flip = "/v1/environments/production/flags/monetizationEnabled"

    /// Sends only the head of a 1 MiB JSON request without a token: the answer must come without the body
    /// (and without `100 Continue` first).
    static func headOnly(_ server: TestServer, _ method: String, _ path: String) async throws -> RawHTTPResponse {
        let head = "\(method) \(path) HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\n"
            + "Content-Length: 1048576\r\nExpect: 100-continue\r\n\r\n"
        let port = server.port
        let raw = try await offPool { try RawHTTP.exchange(port: port, bytes: Array(head.utf8), timeoutSeconds: 5) }
        return try RawHTTP.parse(raw, method: method)
    }

    @Test func failuresAreLoggedWithoutTheTokenAndThrottledPerClient() async throws {
        var options = FlagService.Options()
        options.authFailureLimit = 3
        let server = try TestServer(options: options)
        defer { server.stop() }
        for attempt in 1...3 {
            let response = try await server.write("PUT", Self.flip, json: "false", token: "sfl_guess\(attempt)")
            #expect(response.status == 401, "\(attempt)")
        }
        let failures = server.logLines.all.filter { $0.contains("event=auth_failed") }
        #expect(failures.count == 3)
        #expect(failures.allSatisfy { $0.contains("client=127.0.0.1") && $0.contains("method=PUT") && $0.contains("path=\(Self.flip)") })
        #expect(failures.last?.contains("failures=3") == true)
        #expect(!failures.contains { $0.contains("sfl_guess") })
        // Past the limit a further failure gets 429 with Retry-After (one auth_throttled line, never the token)...
        let throttled = try await server.write("PUT", Self.flip, json: "false", token: "sfl_guess4")
        #expect(throttled.status == 429)
        #expect(try throttled.errorCode() == "too_many_failed_authentications")
        // The rest of the window (exact in FailedAuthThrottleTests, on a stepped clock; a loaded machine takes seconds here).
        #expect((1...60).contains(Int(throttled.header("Retry-After") ?? "") ?? 0))
        #expect(try await server.write("PUT", Self.flip, json: "false", token: "sfl_guess5").status == 429)
        #expect(try server.store.currentVersion(environment: "production")?.number == 1)
        let throttledLines = server.logLines.all.filter { $0.contains("event=auth_throttled") }
        #expect(throttledLines.count == 1 && throttledLines.allSatisfy { $0.contains("client=127.0.0.1") && !$0.contains("sfl_guess") })
        // ...but the right token from the same address is served: failures are throttled, never credentials.
        #expect(try await server.write("PUT", Self.flip, json: "false").status == 200)
        let metrics = try await server.get("/metrics").text
        #expect(metrics.contains(#"flagserver_auth_failures_total{answer="unauthorized"} 3"#), "\(metrics)")
        #expect(metrics.contains(#"flagserver_auth_failures_total{answer="throttled"} 2"#))
        // Public reads are not affected.
        #expect(try await server.get("/v1/environments/production/document").status == 200)
    }

    @Test func aTrustedProxyNamesTheClient() async throws {
        var options = FlagService.Options()
        options.authFailureLimit = 1
        options.trustedProxies = try #require(HTTPTrustedProxies(["127.0.0.1"]))
        let server = try TestServer(options: options)
        defer { server.stop() }
        let first = try await server.write("PUT", Self.flip, json: "false", token: "sfl_wrong",
                                           headers: [("X-Forwarded-For", "203.0.113.7")])
        #expect(first.status == 401)
        #expect(server.logLines.all.contains { $0.contains("event=auth_failed") && $0.contains("client=203.0.113.7") })
        let same = try await server.write("PUT", Self.flip, json: "false", token: "sfl_wrong", headers: [("X-Forwarded-For", "203.0.113.7")])
        #expect(same.status == 429)
        // Another client behind the same proxy is not throttled.
        let other = try await server.write("PUT", Self.flip, json: "false", token: "sfl_wrong", headers: [("X-Forwarded-For", "203.0.113.8")])
        #expect(other.status == 401)
        #expect(try await server.write("PUT", Self.flip, json: "false", headers: [("X-Forwarded-For", "203.0.113.7")]).status == 200)
    }

    @Test func aWriteWithoutATokenIsRefusedFromItsHeadBeforeTheBody() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try await Self.headOnly(server, "PUT", "/v1/environments/production/document")
        #expect(response.status == 401)
        #expect(response.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        #expect(server.logLines.all.contains { $0.contains("event=auth_failed") && $0.contains("path=/v1/environments/production/document") })
        let metrics = try await server.get("/metrics").text
        #expect(metrics.contains(#"flagserver_requests_total{method="PUT",route="/v1/environments/{env}/document",status="401"} 1"#))
    }

    /// Every route that declares a role runs through the same middleware: preview and whoami are refused,
    /// logged and counted like writes (none checks its token without the throttle or the log).
    @Test func everyTokenRouteIsThrottledAndLogged() async throws {
        var options = FlagService.Options()
        options.authFailureLimit = 2
        let server = try TestServer(options: options)
        defer { server.stop() }
        let whoami = try await server.get("/v1/whoami", headers: [("Authorization", "Bearer sfl_guess")])
        #expect(whoami.status == 401)
        let preview = try await server.write("POST", "/v1/environments/production/preview", json: #"{"flag": "a", "value": 1}"#,
                                             token: "sfl_guess", message: nil)
        #expect(preview.status == 401)
        let failures = server.logLines.all.filter { $0.contains("event=auth_failed") }
        #expect(failures.contains { $0.contains("path=/v1/whoami") })
        #expect(failures.contains { $0.contains("path=/v1/environments/production/preview") })
        let throttled = try await server.get("/v1/whoami", headers: [("Authorization", "Bearer sfl_guess2")])
        #expect(throttled.status == 429)
        #expect(try await server.get("/v1/whoami", headers: [("Authorization", "Bearer \(server.readerToken)")]).status == 200)
    }

    /// A request with a body to a route that needs a token is refused from its head when it has none,
    /// preview included.
    @Test func aPreviewWithoutATokenIsRefusedFromItsHeadBeforeTheBody() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try await Self.headOnly(server, "POST", "/v1/environments/production/preview")
        #expect(response.status == 401)
        #expect(try response.json()["error"]?["message"] == "this needs a reader token (Authorization: Bearer ...)")
    }

    /// The token is checked before the route looks at the environment: a caller without a valid token
    /// learns nothing about which environments exist (the 404 lists them).
    @Test func aWrongTokenGets401BeforeAnUnknownEnvironmentIs404() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let wrong = try await server.write("PUT", "/v1/environments/nowhere/flags/a", json: "true", token: "sfl_wrong")
        #expect(wrong.status == 401)
        #expect(try wrong.json()["error"]?["known"] == nil)
        let right = try await server.write("PUT", "/v1/environments/nowhere/flags/a", json: "true")
        #expect(right.status == 404)
        #expect(try right.errorCode() == "unknown_environment")
    }
}
