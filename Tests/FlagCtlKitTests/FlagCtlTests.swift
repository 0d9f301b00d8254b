import CommandLineKit
import Foundation
import Testing
@testable import FlagCtlKit

/// The tool's top level on arrays: commands, help, global options, usage errors; and `main` in process.
@Suite struct FlagCtlTests {
    private func usageError(_ arguments: [String], environment: [String: String] = [:]) -> UsageError? {
        if case .usageError(let error) = FlagCtl.parse(arguments, environment: environment) { return error }
        return nil
    }

    @Test func registersEveryCommand() {
        #expect(FlagCtl.commands.map { $0.configuration.name }
            == ["validate", "lint", "storekit", "diff", "eval", "get", "history", "publish", "set", "rollback",
                "schedule", "schedules", "unschedule", "requests", "approve", "reject", "stale", "policy", "audit", "webhooks", "outcomes"])
        #expect(FlagCtl.groups.map(\.name) == ["webhook", "experiment", "guard"])
        #expect(usageError(["bogus", "production"])?.message == "unknown command 'bogus'")
    }

    @Test func parsesACommandWithGlobalsBeforeAndAfter() throws {
        guard case .run(let command, let globals) = FlagCtl.parse(["--server", "http://127.0.0.1:9", "diff", "a.json", "b.json", "--json"]) else {
            Issue.record("not a run")
            return
        }
        let diff = try #require(command as? DiffCommand)
        #expect(diff.old == .file("a.json") && diff.new == .file("b.json") && diff.json && !diff.impact)
        #expect(globals.server?.absoluteString == "http://127.0.0.1:9")
        guard case .run(_, let after) = FlagCtl.parse(["validate", "x", "--server=https://flags.symi.app"]) else {
            Issue.record("not a run")
            return
        }
        #expect(after.server?.host == "flags.symi.app")
    }

    @Test func serverAndTokenFromTheEnvironment() {
        guard case .run(_, let globals) = FlagCtl.parse(["validate", "x"], environment: ["FLAGCTL_SERVER": "http://h:1", "FLAGCTL_TOKEN": "t0k"]) else {
            Issue.record("not a run")
            return
        }
        #expect(globals.server?.absoluteString == "http://h:1")
        #expect(globals.token == "t0k")
        guard case .run(_, let flagWins) = FlagCtl.parse(["--server", "http://a:2", "validate", "x"], environment: ["FLAGCTL_SERVER": "http://h:1"]) else {
            Issue.record("not a run")
            return
        }
        #expect(flagWins.server?.absoluteString == "http://a:2")
    }

    @Test func badServerFromTheEnvironmentIsNamedAsSuch() {
        #expect(usageError(["validate", "x"], environment: ["FLAGCTL_SERVER": "localhost:8080"])?.message
                == "FLAGCTL_SERVER 'localhost:8080' is not an http or https URL")
    }

    @Test func tokenIsNeverAFlag() {
        #expect(usageError(["--token", "secret", "validate", "x"])?.message.contains("FLAGCTL_TOKEN") == true)
        #expect(usageError(["validate", "x", "--token=secret"])?.message.contains("FLAGCTL_TOKEN") == true)
    }

    @Test func helpForTheToolAndEveryCommand() {
        for arguments in [["--help"], ["-h"], ["help"]] {
            guard case .help(let text) = FlagCtl.parse(arguments) else {
                Issue.record("no help for \(arguments)")
                continue
            }
            #expect(text.contains("COMMANDS:") && text.contains("diff"))
        }
        for command in FlagCtl.commands {
            let name = command.configuration.name
            for arguments in [[name, "--help"], ["help", name], [name, "x", "-h"]] {
                guard case .help(let text) = FlagCtl.parse(arguments) else {
                    Issue.record("no help for \(arguments)")
                    continue
                }
                #expect(text.contains("USAGE: \(FlagCtl.usage(of: command))"))
                #expect(text.contains(command.configuration.abstract))
            }
        }
    }

    @Test(arguments: [
        ([], "missing command"),
        (["frobnicate"], "unknown command 'frobnicate'"),
        (["help", "frobnicate"], "unknown command 'frobnicate'"),
        (["--bogus", "diff"], "unknown option '--bogus'"),
        (["--server"], "option '--server' needs a value <url>"),
        (["--server", "ftp://x", "validate", "a"], "server 'ftp://x' is not an http or https URL"),
        (["diff", "a", "b", "--sample", "10"], "option '--sample' needs --impact"),
        (["diff", "a", "b", "--impact", "--sample", "0"], "--sample '0' must be a whole number from 1 to 10000000"),
        (["diff", "a", "b", "--impact", "--seed", "-1"], "--seed '-1' must be a non-negative whole number"),
        (["eval", "f", "--context", "novalue"], "--context 'novalue' is not KEY=VALUE"),
        (["eval", "f", "--context", "a=1", "--context", "a=2"], "--context a given more than once"),
    ])
    func usageErrors(arguments: [String], message: String) {
        #expect(usageError(arguments)?.message == message)
    }

    @Test func mainPrintsUsageLineAndExits64() {
        let out = BufferOutput()
        let err = BufferOutput()
        let status = FlagCtl.main(arguments: ["diff"], environment: [:], stdout: out, stderr: err, stdoutIsTerminal: false)
        #expect(status == 64)
        #expect(out.text.isEmpty)
        #expect(err.text == """
        flagctl: error: missing argument <a>
        Usage: \(FlagCtl.usage(of: DiffCommand.self))
        See 'flagctl diff --help'.

        """)
    }

    @Test func diffIsColoredOnlyOnATerminalWithoutNoColor() throws {
        let a = TestSupport.packageRoot.appendingPathComponent("flags/production.json").path
        let b = TestSupport.packageRoot.appendingPathComponent("flags/staging.json").path
        for (terminal, environment, colored) in [(true, [String: String](), true), (false, [:], false), (true, ["NO_COLOR": "1"], false)] {
            let out = BufferOutput()
            let status = FlagCtl.main(arguments: ["diff", a, b], environment: environment, stdout: out, stderr: BufferOutput(),
                                      stdoutIsTerminal: terminal)
            #expect(status == 1)
            #expect(out.text.contains("\u{1B}[33m~ flag premiumFeaturesLocked\u{1B}[0m") == colored)
            #expect(out.text.contains("\u{1B}[") == colored)
        }
    }
}
