import CommandLineKit
import Testing
@testable import FlagServerCLI

/// Every `flagserver` command's help says what its parser takes: an example built from each usage line parses, and
/// a word the abstract names in capitals is a positional argument (`token revoke NAME`).
@Suite struct FlagServerHelpTests {
    @Test func everyUsageLineParsesAsItReads() {
        let problems = FlagServer.tool.helpProblems(examples: ["path|uri": "/tmp/flags.sqlite", "uri": "postgresql://localhost/flags",
                                                               "file": "/tmp/backup.sqlite", "n": "1", "date": "2026-12-01",
                                                               "list": "Production,Sandbox"],
                                                    dependencies: ["give the token's name once", "is required for Production",
                                                                   "needs --appstore-bundle-id"])
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}
