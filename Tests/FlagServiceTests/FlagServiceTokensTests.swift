import FlagKit
import FlagService
import FlagServiceTestSupport
import FlagStore
import Foundation
import TestSupport
import Testing

/// `/v1/tokens` over real HTTP: create (the secret once, and it works at once), list, revoke (it stops at
/// once), refusals with their paths, an unscoped admin only, one's own token not revocable, and the audit
/// lines of each change and each refusal.
@Suite struct FlagServiceTokensTests {
    @Test func createsListsAndRevokes() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let created = try await server.asAdmin("POST", "/v1/tokens", json: #"{"name": "ops-carla", "role": "writer", "environments": ["staging"]}"#)
        #expect(created.status == 201, "\(created.text)")
        #expect(created.header("Location") == "/v1/tokens/ops-carla" && created.header("Cache-Control") == "no-store")
        let body = try created.json()
        let secret = try #require(body["secret"]?.stringValue)
        #expect(secret.hasPrefix("sfl_") && secret.count == 47)
        #expect(body["name"] == "ops-carla" && body["role"] == "writer" && body["environments"] == ["staging"])
        #expect(body["active"] == true && body["revokedAt"] == .null)

        // The new secret works at once, with its role and scope.
        let whoami = try await server.asAdmin("GET", "/v1/whoami", token: secret)
        #expect(try whoami.json()["name"] == "ops-carla" && (try whoami.json()["environments"]) == ["staging"])
        let outside = try await server.write("PUT", "/v1/environments/production/flags/monetizationEnabled", json: "false", token: secret)
        #expect(try outside.status == 403 && (try outside.errorCode()) == "environment_not_allowed")

        let list = try await server.asAdmin("GET", "/v1/tokens")
        #expect(list.status == 200 && list.header("Cache-Control") == "no-store")
        let names = try list.json()["tokens"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(names == ["ops-carla", "test-admin", "test-reader", "test-writer"])
        #expect(!list.text.contains("sfl_"), "never a secret again")

        let revoked = try await server.asAdmin("DELETE", "/v1/tokens/ops-carla")
        #expect(revoked.status == 200)
        #expect(try revoked.json()["active"] == false && (try revoked.json()["revokedAt"])?.stringValue != nil)
        #expect(try await server.asAdmin("GET", "/v1/whoami", token: secret).status == 401, "revoked at once")
        #expect(try await server.asAdmin("GET", "/v1/tokens").json()["tokens"]?.arrayValue?.count == 3)
        let all = try await server.asAdmin("GET", "/v1/tokens?includeRevoked=true").json()["tokens"]?.arrayValue
        #expect(all?.count == 4)
        let again = try await server.asAdmin("DELETE", "/v1/tokens/ops-carla")
        #expect(try again.status == 404 && (try again.errorCode()) == "token_not_found")

        let lines = try server.store.auditEntries(limit: 100).filter { $0.outcome == .ok && $0.target == "ops-carla" }
        #expect(lines.map(\.action) == ["token.revoke", "token.create"])
        #expect(lines.allSatisfy { $0.actor == "test-admin" && $0.client == "127.0.0.1" })
        #expect(lines.last?.detail == "name ops-carla role writer environments staging")
        let refused = try await ServiceRoutesTests.pollAudit(server.store, count: 1) { $0.outcome == .refused && $0.action == "token.revoke" }
        #expect(refused.first?.status == 404 && refused.first?.target == "ops-carla")
    }

    @Test func refusesBadBodiesAtTheirPathsAndTakenNames() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let bad = try await server.asAdmin("POST", "/v1/tokens",
                                 json: #"{"name": "no spaces", "role": "root", "environments": ["staging", "moon"], "secret": "x"}"#)
        #expect(try bad.status == 422 && (try bad.errorCode()) == "invalid_body")
        let paths = try bad.json()["error"]?["details"]?.arrayValue?.compactMap { $0["path"]?.stringValue }
        #expect(paths == ["/secret", "/name", "/role", "/environments/1"])
        let empty = try await server.asAdmin("POST", "/v1/tokens", json: #"{"name": "x", "role": "reader", "environments": []}"#)
        #expect(try empty.json()["error"]?["details"]?.arrayValue?.first?["path"] == "/environments")
        #expect(try await server.asAdmin("POST", "/v1/tokens", json: "[1]").status == 422)
        #expect(try await server.asAdmin("POST", "/v1/tokens", json: "{").status == 400)
        let taken = try await server.asAdmin("POST", "/v1/tokens", json: #"{"name": "test-writer", "role": "writer"}"#)
        #expect(try taken.status == 409 && (try taken.errorCode()) == "token_name_taken")
        #expect(try await server.asAdmin("GET", "/v1/tokens?includeRevoked=maybe").status == 400)
        // Nothing was created by any of these.
        #expect(try server.store.listTokens().count == 3)
    }

    @Test func onlyAnUnscopedAdminAndNeverItsOwnToken() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let body = #"{"name": "sneaky", "role": "admin"}"#
        for token in [server.writerToken, server.readerToken] {
            let refused = try await server.asAdmin("POST", "/v1/tokens", json: body, token: token)
            #expect(try refused.status == 403 && (try refused.errorCode()) == "forbidden")
        }
        let scoped = try server.store.createToken(name: "prod-admin", role: .admin, environments: ["production"]).secret
        let escalation = try await server.asAdmin("POST", "/v1/tokens", json: body, token: scoped)
        #expect(try escalation.status == 403 && (try escalation.errorCode()) == "environment_not_allowed",
                "a scoped admin cannot mint a token for every environment")
        #expect(try await server.asAdmin("GET", "/v1/tokens", token: scoped).status == 403)
        #expect(try await server.asAdmin("DELETE", "/v1/tokens/test-writer", token: server.writerToken).status == 403)
        #expect(try await RawHTTP.request(port: server.port, method: "GET", path: "/v1/tokens").status == 401)

        let own = try await server.asAdmin("DELETE", "/v1/tokens/test-admin")
        #expect(try own.status == 409 && (try own.errorCode()) == "own_token")
        #expect(try await server.asAdmin("GET", "/v1/whoami").status == 200, "still signed in")
        #expect(try server.store.listTokens().map(\.name).contains("sneaky") == false)
        // Audit lines are written after the answers: wait for the two this test names (waiting for "any four" of the
        // refusals could return before the last one, the 409, was written).
        let escalationLine: (AuditEntry) -> Bool = { $0.outcome == .refused && $0.actor == "prod-admin" && $0.status == 403 && $0.action == "token.create" }
        let ownLine: (AuditEntry) -> Bool = { $0.outcome == .refused && $0.actor == "test-admin" && $0.status == 409 && $0.target == "test-admin" }
        let refusals = try await ServiceRoutesTests.pollAudit(server.store, count: 2) { escalationLine($0) || ownLine($0) }
        #expect(refusals.contains(where: escalationLine))
        #expect(refusals.contains(where: ownLine))
    }

    /// A token revoked over HTTP stops at once where the in-memory table decides (reads with --require-read-token),
    /// not at the next periodic reload.
    @Test func aRevokedReaderIsRefusedAtOnceOnCachedReads() async throws {
        var options = FlagService.Options(requireReadToken: true)
        options.tokenRefreshInterval = .seconds(3_600)
        let server = try TestServer(options: options)
        defer { server.stop() }
        let created = try await server.asAdmin("POST", "/v1/tokens", json: #"{"name": "app-reader", "role": "reader"}"#)
        let secret = try #require(try created.json()["secret"]?.stringValue)
        let path = "/v1/environments/production/document"
        #expect(try await server.asAdmin("GET", path, token: secret).status == 200, "a created token reads at once")
        #expect(try await server.asAdmin("DELETE", "/v1/tokens/app-reader").status == 200)
        #expect(try await server.asAdmin("GET", path, token: secret).status == 401, "a revoked token reads no more")
    }
}
