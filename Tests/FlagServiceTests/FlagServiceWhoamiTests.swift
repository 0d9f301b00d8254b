import FlagKit
import FlagService
import FlagServiceTestSupport
import TestSupport
import Testing

/// `GET /v1/whoami` over real HTTP: the token's name and role, 401 for none, a wrong or a revoked one.
@Suite struct FlagServiceWhoamiTests {
    func whoami(_ server: TestServer, _ token: String?) async throws -> RawHTTPResponse {
        try await server.get("/v1/whoami", headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [])
    }

    @Test func namesTheTokenAndItsRole() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let writer = try await whoami(server, server.writerToken)
        #expect(writer.status == 200)
        #expect(try writer.json() == ["name": "test-writer", "role": "writer", "environments": nil, "readsArePublic": true],
                "environments null: every environment")
        #expect(writer.header("Cache-Control") == "no-store")
        #expect(try await whoami(server, server.readerToken).json()["role"] == "reader")
        #expect(try await whoami(server, server.adminToken).json()["role"] == "admin")
    }

    @Test func refusesNoTokenAWrongOneAndARevokedOneAtOnce() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let none = try await whoami(server, nil)
        #expect(none.status == 401)
        #expect(none.header("WWW-Authenticate") == #"Bearer realm="flagserver""#)
        let wrong = try await whoami(server, "sfl_not-a-token")
        #expect(wrong.status == 401)
        #expect(wrong.header("WWW-Authenticate")?.contains("invalid_token") == true)
        try server.store.revokeToken(name: "test-writer")
        let revoked = try await whoami(server, server.writerToken)
        #expect(revoked.status == 401, "revocation is checked against the database, not the cached table")
        #expect(try revoked.json()["error"]?["message"] == "unknown or revoked token")
    }

    @Test func showsAScopedTokensEnvironments() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let secret = try server.token("qa", .writer, environments: ["staging", "production"])
        #expect(try await whoami(server, secret).json()["environments"] == ["production", "staging"], "sorted")
    }

    @Test func saysWhenReadsNeedAToken() async throws {
        let server = try TestServer(options: FlagService.Options(requireReadToken: true))
        defer { server.stop() }
        #expect(try await whoami(server, server.readerToken).json()["readsArePublic"] == false)
    }
}
