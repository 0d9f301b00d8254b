import CommandLineKit
import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagCtlKit

/// `flagctl audit` against a real `flagserver`: what happened and what was refused, filtered by environment
/// and time, paged through the server's `next`.
@Suite struct AuditCommandTests {
    private func parsed(_ arguments: [String]) -> AuditCommand? {
        if case .run(let command, _) = FlagCtl.parse(["audit"] + arguments) { return command as? AuditCommand }
        return nil
    }

    private func usageError(_ arguments: [String]) -> String? {
        if case .usageError(let error) = FlagCtl.parse(["audit"] + arguments) { return error.message }
        return nil
    }

    @Test func readsItsOptions() throws {
        let command = try #require(parsed(["--env", "production", "--since", "2027-03-01T00:00:00+01:00", "--actor", "ops", "--action",
                                           "token.create", "--outcome", "refused", "--limit", "250", "--json"]))
        #expect(command.filter == AuditFilter(environment: "production", sinceMilliseconds: 1_803_855_600_000, actor: "ops",
                                              action: "token.create", outcome: "refused"))
        #expect(command.limit == 250 && command.json)
        #expect(parsed([])?.limit == 100 && parsed([])?.filter == AuditFilter())
        #expect(usageError(["--outcome", "maybe"]) == "--outcome 'maybe' must be ok, refused or failed")
        #expect(usageError(["--limit", "0"]) == "--limit '0' must be a whole number from 1 to 10000")
        #expect(usageError(["--since", "yesterday"])?.hasPrefix("--since 'yesterday' is neither an RFC 3339 time") == true)
        #expect(usageError(["--env", "Production"])?.contains("not an environment name") == true)
    }

    @Test func aTimeIsRFC3339OrASpanBackFromNow() throws {
        let now: Int64 = 1_800_000_000_000
        #expect(try AuditCommand.time("30m", now: now) == now - 1_800_000)
        #expect(try AuditCommand.time("24h", now: now) == now - 86_400_000)
        #expect(try AuditCommand.time("7d", now: now) == now - 604_800_000)
        #expect(try AuditCommand.time("90s", now: now) == now - 90_000)
        #expect(try AuditCommand.time("2027-03-01T00:00:00Z", now: now) == 1_803_859_200_000)
        for bad in ["", "m", "-5m", "5w", "2027-03-01T00:00:00", "1.5h"] {
            #expect(throws: UsageError.self, "\(bad)") { try AuditCommand.time(bad, now: now) }
        }
    }

    @Test func theFilterBecomesAnEncodedQuery() {
        let filter = AuditFilter(environment: "production", sinceMilliseconds: 0, actor: "a&b c", outcome: "ok")
        #expect(filter.query(limit: 5, before: 9) == "env=production&since=1970-01-01T00:00:00.000Z&actor=a%26b%20c&outcome=ok&limit=5&before=9")
    }

    @Test func listsAFlipAndARefusalAgainstARealServer() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        let admin = try server.token(name: "ops-admin", role: "admin")
        let reader = try server.token(name: "viewer", role: "reader")
        #expect(try server.flagctl(["set", "production", "monetizationEnabled", "false", "-m", "Paid launch"]).status == 0)
        let refused = try server.flagctl(["set", "production", "monetizationEnabled", "true", "-m", "x"],
                                         environment: server.environment(token: .value(reader)))
        #expect(refused.status == 2 && refused.stderr.contains("403"))
        let asAdmin = server.environment(token: .value(admin))
        // The refusal reaches the log with the writer's next commit or within a moment.
        var table = ""
        let deadline = Date().addingTimeInterval(10)
        while !table.contains("refused 403"), Date() < deadline {
            table = try server.flagctl(["audit", "--env", "production", "--since", "10m"], environment: asAdmin).stdout
            if !table.contains("refused 403") { usleep(50_000) }
        }
        let lines = table.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("TIME") == true && lines.first?.hasSuffix("OUTCOME      WHY") == true)
        #expect(lines[1].contains("  viewer  ") && lines[1].contains("  publish  ") && lines[1].contains("monetizationEnabled")
            && lines[1].contains("refused 403  forbidden: this token has role reader; this needs writer"))
        #expect(lines[2].contains("  ci  ") && lines[2].contains("  ok  ") && lines[2].contains("version 2 sha256 "))
        #expect(lines.contains { $0.contains("  flagserver  ") && $0.contains("  production  ") }, "the seed's version 1")
        #expect(try server.flagctl(["audit", "--since", "2999-01-01T00:00:00Z"], environment: asAdmin).stdout == "no audit lines match\n")

        let tokens = try server.flagctl(["audit", "--action", "token.create", "--json"], environment: asAdmin)
        #expect(tokens.status == 0)
        let entries = try #require(try JSONParser.parse(tokens.stdout).value.arrayValue)
        #expect(entries.map { $0["target"] } == ["viewer", "ops-admin", "ci"])

        let writer = try server.flagctl(["audit"])
        #expect(writer.status == 2 && writer.stderr.contains("GET \(server.url)/v1/audit?limit=100: 403 forbidden"))
    }

    @Test func pagesThroughNext() async throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        let admin = try server.token(name: "ops-admin", role: "admin")
        for value in ["false", "true", "false"] {
            #expect(try server.flagctl(["set", "staging", "monetizationEnabled", value, "-m", "m"]).status == 0)
        }
        let client = ServerClient(baseURL: try #require(URL(string: server.url)), token: admin)
        // The client blocks its thread until a task of its own has run: not on the test's (cooperative) thread.
        let (paged, whole, staging) = try await Self.onThread {
            (try client.audit(AuditFilter(), limit: 7, pageSize: 2), try client.audit(AuditFilter(), limit: 7),
             try client.audit(AuditFilter(environment: "staging"), limit: 1000, pageSize: 2))
        }
        #expect(paged.count == 7 && paged == whole, "four pages of 2, 2, 2 and 1 give the newest seven")
        #expect(staging.count == 4, "the last page ends it")
    }

    /// Runs `body` on a thread of its own and awaits it without holding a cooperative thread.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                do {
                    continuation.resume(returning: try body())
                } catch {
                    continuation.resume(throwing: error)
                }
            }.start()
        }
    }
}
