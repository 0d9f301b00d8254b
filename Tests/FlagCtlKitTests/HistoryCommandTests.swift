import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagCtlKit

/// `flagctl history` against a real `flagserver`.
@Suite struct HistoryCommandTests {
    @Test func listsVersionsNewestFirstWithRollbacks() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        #expect(try server.flagctl(["set", "production", "monetizationEnabled", "false", "-m", "Start"]).status == 0)
        #expect(try server.flagctl(["rollback", "production", "--to", "1", "-m", "Zurück", "--yes"]).status == 0)

        let run = try server.flagctl(["history", "production"])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 4)
        #expect(lines[0].hasPrefix("VERSION  PUBLISHED                 AUTHOR      MESSAGE"))
        #expect(lines[1].hasPrefix("3        20"))
        #expect(lines[1].hasSuffix("  ci          Zurück (rollback to 1)"))
        #expect(lines[2].hasSuffix("  ci          Start"))
        #expect(lines[3].hasPrefix("1        "))
        #expect(lines[3].contains("  flagserver  initial import of "))

        let limited = try server.flagctl(["history", "production", "--limit", "1", "--json"])
        #expect(limited.status == 0)
        let entries = try #require(try JSONParser.parse(limited.stdout).value.arrayValue)
        #expect(entries.count == 1)
        #expect(entries.first?.objectValue?["version"] == .integer(3))
        #expect(entries.first?.objectValue?["rolledBackFrom"] == .integer(1))
    }

    @Test func refusals() throws {
        let limit = try TestSupport.run(["history", "production", "--limit", "0"])
        #expect(limit.status == 64)
        #expect(limit.stderr.hasPrefix("flagctl: error: --limit '0' must be a whole number from 1 to 1000\n"))
        let noServer = try TestSupport.run(["history", "production"])
        #expect(noServer.status == 2)
        #expect(noServer.stderr == "flagctl: no server: pass --server URL or set FLAGCTL_SERVER\n")
    }

    @Test func tableColumns() {
        let url = URL(fileURLWithPath: "/")
        let entry: [String: JSONValue] = ["environment": "p", "version": 12, "contentHash": .string(String(repeating: "ab", count: 32)), "publishedAt": "T",
                                          "author": "ops-anna", "message": "a\nb"]
        let version = try? PublishedVersion(entry, etag: nil, url: url)
        #expect(HistoryCommand.table(version.map { [$0] } ?? []) == "VERSION  PUBLISHED  AUTHOR    MESSAGE\n12       T          ops-anna  a b\n")
    }
}
