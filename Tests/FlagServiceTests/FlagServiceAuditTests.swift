import FlagKit
import FlagService
import FlagServiceTestSupport
import FlagStore
import Foundation
import HTTPServer
import TestSupport
import Testing

/// `GET /v1/audit` over real HTTP, and what the API's write routes leave in it: accepted publishes with their
/// target and client, every refusal with actor, status and reason, token changes; not a line per throttled request.
@Suite struct FlagServiceAuditTests {
    func audit(_ server: TestServer, _ query: String = "", token: String? = nil) async throws -> RawHTTPResponse {
        try await server.get("/v1/audit" + query, headers: [("Authorization", "Bearer \(token ?? server.adminToken)")])
    }

    /// The entries of a 200, after the writer has committed `count` refusals (it gathers them for 50 ms).
    func entries(_ server: TestServer, _ query: String = "", refusals count: Int = 0) async throws -> [JSONValue] {
        _ = try await ServiceRoutesTests.pollAudit(server.store, count: count) { $0.outcome != .ok }
        let response = try await audit(server, query)
        #expect(response.status == 200)
        return try response.json()["entries"]?.arrayValue ?? []
    }

    @Test func listsAnAcceptedFlipWithItsTargetAndTheTokenChanges() async throws {
        let server = try TestServer()
        defer { server.stop() }
        #expect(try await server.write("PUT", "/v1/environments/production/flags/monetizationEnabled", json: "false").status == 200)
        let lines = try await entries(server)
        let flip = try #require(lines.first)
        #expect(flip["action"] == "publish" && flip["actor"] == "test-writer" && flip["outcome"] == "ok")
        #expect(flip["environment"] == "production" && flip["target"] == "monetizationEnabled" && flip["version"] == 2)
        #expect(flip["client"] == "127.0.0.1" && flip["status"] == .null && flip["reason"] == .null)
        #expect(flip["at"]?.stringValue?.hasSuffix("Z") == true)
        #expect(lines.filter { $0["action"] == "token.create" }.map { $0["target"] } == ["test-admin", "test-reader", "test-writer"])
    }

    @Test func listsEveryRefusedWriteWithActorStatusAndReason() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let document = try TestServer.flagFile("production")
        // A dry run publishes nothing: its refusal is no write attempt (first, so a line of it would be among those below).
        #expect(try await server.write("PUT", "/v1/environments/production/document?dryRun=true", json: "{}").status == 422)
        #expect(try await server.write("PUT", "/v1/environments/production/flags/monetizationEnabled", json: "false", token: "sfl_wrong").status == 401)
        #expect(try await server.write("PUT", "/v1/environments/production/flags/monetizationEnabled", json: "false",
                                       token: server.readerToken).status == 403)
        #expect(try await server.write("PUT", "/v1/environments/production/document", json: document,
                                       headers: [("If-Match", #""7-0000000000000000""#)]).status == 412)
        #expect(try await server.write("PUT", "/v1/environments/production/flags/monetizationEnabled", json: "\"yes\"").status == 422)
        #expect(try await server.write("PUT", "/v1/environments/production/document", json: document).status == 428)
        #expect(try await server.write("POST", "/v1/environments/staging/rollback", json: #"{"version": 99, "message": "m"}"#).status == 404)
        let lines = try await entries(server, "?outcome=refused", refusals: 6)
        #expect(lines.map { $0["status"] } == [404, 428, 422, 412, 403, 401])
        #expect(lines.map { $0["actor"] } == ["test-writer", "test-writer", "test-writer", "test-writer", "test-reader", "-"])
        #expect(lines.map { $0["target"] ?? .null } == [nil, nil, "monetizationEnabled", nil, "monetizationEnabled", "monetizationEnabled"])
        #expect(lines.map { $0["environment"] } == ["staging", "production", "production", "production", "production", "production"])
        #expect(lines.allSatisfy { $0["action"] == "publish" && $0["outcome"] == "refused" && $0["client"] == "127.0.0.1" })
        let reasons = lines.compactMap { $0["reason"]?.stringValue?.split(separator: ":").first.map(String.init) }
        #expect(reasons == ["version_not_found", "precondition_required", "type_mismatch", "precondition_failed", "forbidden", "unauthorized"])
    }

    @Test func filtersAndPages() async throws {
        let server = try TestServer()
        defer { server.stop() }
        for value in ["false", "true", "false"] {
            #expect(try await server.write("PUT", "/v1/environments/staging/flags/monetizationEnabled", json: value).status == 200)
        }
        #expect(try await server.write("PUT", "/v1/environments/production/flags/monetizationEnabled", json: "false").status == 200)
        #expect(try await entries(server, "?env=staging&action=publish").count == 4, "three flips and the seed's version 1")
        #expect(try await entries(server, "?actor=test-writer&env=production").count == 1)
        #expect(try await entries(server, "?action=token.create").count == 3)
        let first = try await audit(server, "?action=publish&actor=test-writer&limit=2").json()
        #expect(first["entries"]?.arrayValue?.map { $0["environment"] } == ["production", "staging"])
        let next = try #require(first["next"]?.integerValue)
        let second = try await audit(server, "?action=publish&actor=test-writer&limit=2&before=\(next)").json()
        #expect(second["entries"]?.arrayValue?.count == 2 && second["next"] == .null, "the last page says so")
        #expect(try await entries(server, "?since=2999-01-01T00:00:00Z").isEmpty)
        #expect(try await entries(server, "?until=2000-01-01T00:00:00%2B01:00").isEmpty)
        #expect(try await entries(server, "?since=2000-01-01T00:00:00Z&action=publish").count == 6)
    }

    @Test(arguments: [
        ("?since=yesterday", "since"), ("?until=2027-03-01T00:00:00", "until"), ("?outcome=maybe", "outcome"),
        ("?limit=0", "limit"), ("?limit=1001", "limit"), ("?before=x", "before"), ("?env=", "env"), ("?actor=", "actor"),
    ])
    func refusesABadParameterNamingIt(query: String, parameter: String) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try await audit(server, query)
        #expect(response.status == 400)
        #expect(try response.errorCode() == "invalid_parameter")
        #expect(try response.json()["error"]?["message"]?.stringValue?.hasPrefix(parameter) == true)
    }

    @Test func needsAnUnscopedAdmin() async throws {
        let server = try TestServer()
        defer { server.stop() }
        #expect(try await server.get("/v1/audit").status == 401)
        #expect(try await audit(server, token: server.writerToken).status == 403)
        let scoped = try server.token("staging-admin", .admin, environments: ["staging"])
        let refused = try await audit(server, "?env=staging", token: scoped)
        #expect(refused.status == 403)

        #expect(try refused.errorCode() == "environment_not_allowed")
    }

    @Test func aThrottledClientIsCountedNotWrittenPerRequest() async throws {
        var options = FlagService.Options()
        options.authFailureLimit = 2
        // The guesser comes through a trusted proxy with an address of its own, so the admin reading the log is not throttled.
        options.trustedProxies = try #require(HTTPTrustedProxies(["127.0.0.1"]))
        let server = try TestServer(options: options)
        defer { server.stop() }
        var statuses: [Int] = []
        for _ in 0..<6 {
            statuses.append(try await server.write("PUT", "/v1/environments/production/flags/monetizationEnabled", json: "false",
                                                   token: "sfl_guess", headers: [("X-Forwarded-For", "192.0.2.66")]).status)
        }
        #expect(statuses == [401, 401, 429, 429, 429, 429])
        let lines = try await entries(server, "?outcome=refused", refusals: 2)
        #expect(lines.map { $0["status"] } == [401, 401], "the two 401s, not the 429s")
        #expect(lines.map { $0["client"] } == ["192.0.2.66", "192.0.2.66"])
        let metrics = try await server.get("/metrics").text
        #expect(metrics.contains("flagserver_audit_throttled_total 4"))
    }
}
