import Testing
@testable import CommandLineKit

/// What a tool prints for a usage error, and how the parts are filled in.
@Suite struct UsageErrorTests {
    @Test func reportHasTheErrorTheUsageLineAndTheHelpHint() {
        let error = UsageError("missing argument <a>", usage: "flagctl diff <a> [<b>]", tool: "flagctl", helpHint: "flagctl diff --help")
        #expect(error.report == "flagctl: error: missing argument <a>\nUsage: flagctl diff <a> [<b>]\nSee 'flagctl diff --help'.\n")
        #expect(UsageError("bare").description == "error: bare")
        #expect(UsageError.exitStatus == 64)
    }

    @Test func completingKeepsWhatIsAlreadyThere() {
        let context = UsageError("", usage: "tool cmd", tool: "tool", helpHint: "tool cmd --help")
        #expect(UsageError("x").completed(by: context) == UsageError("x", usage: "tool cmd", tool: "tool", helpHint: "tool cmd --help"))
        #expect(UsageError("x", usage: "tool").completed(by: context).usage == "tool")
    }
}
