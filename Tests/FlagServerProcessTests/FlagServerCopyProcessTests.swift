import FlagKit
import FlagServiceTestSupport
import FlagStore
import Foundation
import PostgresTestSupport
import TestSupport
import Testing

/// Moving up from SQLite to PostgreSQL with real processes: a `flagserver` serves a SQLite file, is stopped, `flagserver copy`
/// copies the file into a fresh database of the tests' PostgreSQL cluster, and a `flagserver` on the URI serves the
/// same documents (same ETags and bytes), history, tokens, policies, webhooks and changes; tokens made before the
/// copy write, and new versions, tokens and webhooks continue the numbers and ids.
@Suite(.serialized) struct FlagServerCopyProcessTests {
    /// The GETs whose answers must not change with the store: every environment's document (status, ETag, body),
    /// history, policy, schedules and requests, and the admin listings of tokens and webhooks.
    static func answers(port: Int, admin: String) async throws -> [String: String] {
        var answers: [String: String] = [:]
        for environment in CopyFixture.environments {
            let base = "/v1/environments/\(environment)"
            let document = try await RawHTTP.request(port: port, method: "GET", path: base + "/document")
            answers[base + "/document"] = "\(document.status) \(document.header("ETag") ?? "-") \(document.text)"
            for path in ["/versions?limit=100", "/policy", "/schedules", "/requests"] {
                let response = try await RawHTTP.request(port: port, method: "GET", path: base + path)
                answers[base + path] = "\(response.status) \(response.text)"
            }
        }
        for path in ["/v1/tokens?includeRevoked=true", "/v1/webhooks?includeDeleted=true", "/v1/environments"] {
            let response = try await RawHTTP.request(port: port, method: "GET", path: path, headers: [("Authorization", "Bearer \(admin)")])
            answers[path] = "\(response.status) \(response.text)"
        }
        return answers
    }

    static func serve(_ database: String, directory: String) async throws -> FlagServerProcess {
        let server = try FlagServerProcess(["--port", "0", "--database", database, "--flags-dir", directory + "/no-flags",
                                        "--console-dir", "off", "--log-level", "warning"], directory: directory)
        try await server.waitUntilReady()
        return server
    }

    @Test func theServerOnTheCopyAnswersAsTheOneOnTheFileDidAndWritesContinueTheNumbers() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fixture = try CopyFixture.make(path: directory + "/flags.sqlite", versions: 6)
        let admin = try #require(fixture.activeSecrets["admin"])

        let onFile = try await Self.serve(fixture.path, directory: directory)
        let before = try await Self.answers(port: onFile.port, admin: admin)
        await onFile.stop()
        #expect(before.values.allSatisfy { $0.hasPrefix("200 ") }, "\(before.filter { !$0.value.hasPrefix("200 ") })")

        let uri = try PostgresTestCluster.shared().createDatabase()
        let copy = try await FlagServerProcess.run(["--database", fixture.path, "copy", "--to", uri], directory: directory)
        // 28 versions: the fixture's 27 and the approved change the first server applied at its start.
        #expect(copy.status == 0 && copy.stdout.hasPrefix("copied 28 versions in 4 environments"), "\(copy.stdout) \(copy.stderr)")

        let onPostgres = try await Self.serve(uri, directory: directory)
        defer { onPostgres.blockingStop() }
        let after = try await Self.answers(port: onPostgres.port, admin: admin)
        for (path, answer) in before.sorted(by: { $0.key < $1.key }) {
            #expect(after[path] == answer, "\(path)")
        }

        // Tokens from before the copy: the active ones write, the revoked ones are refused.
        for secret in fixture.revokedSecrets {
            let whoami = try await RawHTTP.request(port: onPostgres.port, method: "GET", path: "/v1/whoami",
                                                   headers: [("Authorization", "Bearer \(secret)")])
            #expect(whoami.status == 401)
        }
        let path = "/v1/environments/eu-west-1/document"
        let current = try await RawHTTP.request(port: onPostgres.port, method: "GET", path: path)
        let etag = try #require(current.header("ETag"))
        let head = try #require(try current.json()["version"]?.integerValue)
        let put = try await RawHTTP.request(
            port: onPostgres.port, method: "PUT", path: path,
            headers: [("Authorization", "Bearer \(try #require(fixture.activeSecrets["reused"]))"), ("Content-Type", "application/json"),
                      ("X-Change-Message", "after the copy"), ("If-Match", etag)],
            body: CopyFixture.document("eu-west-1", 100))
        #expect(put.status == 200, "\(put.text)")
        #expect(try put.json()["version"]?.integerValue == head + 1)
        let history = try await RawHTTP.request(port: onPostgres.port, method: "GET", path: "/v1/environments/eu-west-1/versions?limit=100")
        let numbers = try history.json()["versions"]?.arrayValue?.compactMap { $0["version"]?.integerValue } ?? []
        #expect(numbers == Array((1...(head + 1)).reversed()), "no gap, no double: \(numbers)")

        // New rows of the tables with identity ids: a collision with a copied id would be a 500.
        let token = try await RawHTTP.request(port: onPostgres.port, method: "POST", path: "/v1/tokens",
                                              headers: [("Authorization", "Bearer \(admin)"), ("Content-Type", "application/json")],
                                              body: Array(#"{"name": "after-copy", "role": "reader"}"#.utf8))
        #expect(token.status == 201, "\(token.text)")
        let webhook = try await RawHTTP.request(port: onPostgres.port, method: "POST", path: "/v1/webhooks",
                                                headers: [("Authorization", "Bearer \(admin)"), ("Content-Type", "application/json")],
                                                body: Array(#"{"url": "https://after.example/hook", "events": ["policy.updated"]}"#.utf8))
        #expect(webhook.status == 201, "\(webhook.text)")
        #expect(try webhook.json()["id"]?.integerValue == 4, "\(webhook.text)")
    }
}
