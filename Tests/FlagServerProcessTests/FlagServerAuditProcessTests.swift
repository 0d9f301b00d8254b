import FlagKit
import FlagServiceTestSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// Audit and scoped tokens of the real `flagserver` process: a staging writer made with `token create --env`
/// is refused production (API and OFREP) and writes staging; the audit log lists the accepted flip, the
/// refused writes with actor, status and reason, and the token changes made by the admin commands.
@Suite struct FlagServerAuditProcessTests {
    static func token(_ name: String, _ role: String, _ extra: [String] = [], directory: String) async throws -> String {
        let created = try await FlagServerProcess.run(["token", "create", "--name", name, "--role", role, "--database", "db.sqlite"] + extra,
                                                  directory: directory)
        guard created.status == 0, let secret = created.stdout.split(separator: "\n").first(where: { $0.hasPrefix("sfl_") }) else {
            throw TestFailure("token create \(name) failed: \(created.stderr)")
        }
        return String(secret)
    }

    static func call(_ port: Int, _ method: String, _ path: String, token: String, json: String? = nil,
                     headers: [(String, String)] = []) async throws -> RawHTTPResponse {
        var all = headers + [("Authorization", "Bearer \(token)"), ("X-Change-Message", "audit process test")]
        if json != nil { all.append(("Content-Type", "application/json")) }
        return try await RawHTTP.request(port: port, method: method, path: path, headers: all, body: json.map { Array($0.utf8) })
    }

    @Test func aStagingWriterIsRefusedProductionAndTheAuditSaysSo() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let unknown = try await FlagServerProcess.run(["token", "create", "--name", "x", "--role", "writer", "--env", "prod", "--database", "db.sqlite"],
                                                  directory: directory)
        #expect(unknown.status == 1 && unknown.stderr.contains("prod"), "an unknown environment is refused: \(unknown.stderr)")
        let admin = try await Self.token("ops-admin", "admin", directory: directory)
        let writer = try await Self.token("ops-writer", "writer", directory: directory)
        let reader = try await Self.token("ops-reader", "reader", directory: directory)
        let staging = try await Self.token("staging-ci", "writer", ["--env", "staging"], directory: directory)
        let listed = try await FlagServerProcess.run(["token", "list", "--database", "db.sqlite"], directory: directory)
        #expect(listed.stdout.split(separator: "\n").contains { $0.hasPrefix("staging-ci\twriter\t") && $0.hasSuffix("\tstaging") })
        // Reads need a token, so OFREP checks the scope too.
        let server = try FlagServerProcess(["--port", "0", "--database", "db.sqlite", "--flags-dir", FlagServerProcessTests.flagsDirectory,
                                        "--require-read-token"], directory: directory)
        defer { server.blockingStop() }
        let port = try await server.waitUntilReady()
        let flag = "/flags/showIntroFreeSubscriptionBanner"  // not protected by flags/policy/production.json: a flip publishes

        let whoami = try await Self.call(port, "GET", "/v1/whoami", token: staging).json()
        #expect(whoami["name"] == "staging-ci" && whoami["role"] == "writer" && whoami["environments"] == ["staging"])
        let production = try await Self.call(port, "PUT", "/v1/environments/production" + flag, token: staging, json: "false")
        #expect(production.status == 403)
        #expect(try production.errorCode() == "environment_not_allowed")
        #expect(try await Self.call(port, "PUT", "/v1/environments/staging" + flag, token: staging, json: "false").status == 200)
        let context = #"{"context": {"targetingKey": "install-1"}}"#
        #expect(try await Self.call(port, "POST", "/ofrep/v1/evaluate/flags", token: staging, json: context).status == 403,
                "OFREP's default environment is production")
        #expect(try await Self.call(port, "POST", "/v1/environments/staging/ofrep/v1/evaluate/flags", token: staging, json: context).status == 200)
        #expect(try await Self.call(port, "POST", "/ofrep/v1/evaluate/flags", token: reader, json: context).status == 200)
        #expect(try await Self.call(port, "GET", "/v1/audit", token: staging).status == 403)

        // What the audit must show: an accepted flip, refusals of every kind, token changes.
        #expect(try await Self.call(port, "PUT", "/v1/environments/production" + flag, token: writer, json: "false").status == 200)
        #expect(try await Self.call(port, "PUT", "/v1/environments/production" + flag, token: "sfl_wrong", json: "true").status == 401)
        #expect(try await Self.call(port, "PUT", "/v1/environments/production" + flag, token: reader, json: "true").status == 403)
        #expect(try await Self.call(port, "PUT", "/v1/environments/production" + flag, token: writer, json: "true",
                                    headers: [("If-Match", #""1-0000000000000000""#)]).status == 412)
        #expect(try await Self.call(port, "PUT", "/v1/environments/production" + flag, token: writer, json: "42").status == 422)
        let revoked = try await FlagServerProcess.run(["token", "revoke", "--name", "ops-reader", "--database", "db.sqlite"], directory: directory)
        #expect(revoked.status == 0)

        var entries: [JSONValue] = []
        let deadline = Date().addingTimeInterval(10)
        while entries.filter({ $0["outcome"] == "refused" }).count < 5, Date() < deadline {
            entries = try await Self.call(port, "GET", "/v1/audit?env=production", token: admin).json()["entries"]?.arrayValue ?? []
            try await Task.sleep(for: .milliseconds(50))
        }
        let refused = entries.filter { $0["outcome"] == "refused" }
        #expect(refused.map { $0["status"] } == [422, 412, 403, 401, 403])
        #expect(refused.map { $0["actor"] } == ["ops-writer", "ops-writer", "ops-reader", "-", "staging-ci"])
        #expect(refused.map { $0["reason"]?.stringValue?.split(separator: ":").first.map(String.init) ?? "" }
            == ["type_mismatch", "precondition_failed", "forbidden", "unauthorized", "environment_not_allowed"])
        #expect(refused.allSatisfy { $0["action"] == "publish" && $0["target"] == "showIntroFreeSubscriptionBanner" && $0["client"] == "127.0.0.1" })
        let flip = try #require(entries.first { $0["outcome"] == "ok" && $0["actor"] == "ops-writer" })
        #expect(flip["action"] == "publish" && flip["version"] == 2 && flip["target"] == "showIntroFreeSubscriptionBanner")
        let tokens = try await Self.call(port, "GET", "/v1/audit?action=token.create", token: admin).json()["entries"]?.arrayValue ?? []
        #expect(tokens.map { $0["target"] } == ["staging-ci", "ops-reader", "ops-writer", "ops-admin"])
        #expect(tokens.first?["detail"] == "name staging-ci role writer environments staging" && tokens.first?["actor"] == "flagserver-cli")
        let revocation = try await Self.call(port, "GET", "/v1/audit?action=token.revoke", token: admin).json()["entries"]?.arrayValue
        #expect(revocation?.map { $0["target"] } == ["ops-reader"])
    }
}
