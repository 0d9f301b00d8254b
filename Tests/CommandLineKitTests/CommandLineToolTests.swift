import Testing
@testable import CommandLineKit

/// Dispatch on arrays: commands, groups, the default command, global options before and after, help, usage errors.
@Suite struct CommandLineToolTests {
    private func invoked(_ tool: CommandLineTool<SampleContext>, _ arguments: [String],
                         environment: [String: String] = [:]) -> (any ParsableCommand<SampleContext>, ParsedArguments)? {
        guard case .run(let command, let parsed) = tool.parse(arguments, environment: environment) else { return nil }
        return (command, parsed)
    }

    private func usageError(_ tool: CommandLineTool<SampleContext>, _ arguments: [String]) -> UsageError? {
        guard case .usageError(let error) = tool.parse(arguments) else { return nil }
        return error
    }

    @Test func runsACommandWithGlobalOptionsBeforeAndAfterItsName() throws {
        let (command, parsed) = try #require(invoked(SampleTool.tool, ["-v", "--server", "http://a", "copy", "x", "y", "--count=3"]))
        let copy = try #require(command as? SampleTool.Copy)
        #expect(copy.from == "x" && copy.to == "y" && copy.count == 3)
        #expect(parsed.isSet(SampleTool.verbose))
        #expect(try parsed.value(SampleTool.server) == "http://a")
        let (_, after) = try #require(invoked(SampleTool.tool, ["copy", "x", "y", "--server=http://b"], environment: ["SAMPLE_SERVER": "http://c"]))
        #expect(try after.value(SampleTool.server) == "http://b")
        let (_, fromVariable) = try #require(invoked(SampleTool.tool, ["copy", "x", "y"], environment: ["SAMPLE_SERVER": "http://c"]))
        #expect(try fromVariable.value(SampleTool.server) == "http://c")
        let context = SampleContext()
        #expect(copy.run(context) == 0 && context.output.text == "copy x y 3\n")
    }

    @Test func groupsChooseTheirCommandsAndTakeGlobalsBetweenTheWords() throws {
        let (added, parsed) = try #require(invoked(SampleTool.tool, ["key", "-v", "add", "--name", "k1"]))
        #expect((added as? SampleTool.KeyAdd)?.name == "k1")
        #expect(parsed.isSet(SampleTool.verbose))
        #expect(invoked(SampleTool.tool, ["key", "list"])?.0 is SampleTool.KeyList)
        #expect(usageError(SampleTool.tool, ["key"]) == UsageError(
            "missing key command (add, list)", usage: "sample key <command> [<options>] [<arguments>]", tool: "sample", helpHint: "sample key --help"))
        #expect(usageError(SampleTool.tool, ["key", "drop"])?.message == "unknown key command 'drop' (add, list)")
        #expect(usageError(SampleTool.tool, ["key", "add"]) == UsageError(
            "missing option '--name <name>'", usage: "sample key add --name <name>", tool: "sample", helpHint: "sample key add --help"))
    }

    @Test func theDefaultCommandTakesWhatNamesNoCommand() throws {
        #expect((invoked(SampleTool.serving, [])?.0 as? SampleTool.Serve)?.port == 80)
        #expect((invoked(SampleTool.serving, ["--server", "x", "--port", "81"])?.0 as? SampleTool.Serve)?.port == 81)
        #expect((invoked(SampleTool.serving, ["--port", "82", "--server", "x"])?.0 as? SampleTool.Serve)?.port == 82)
        #expect((invoked(SampleTool.serving, [], environment: ["SAMPLE_PORT": "83"])?.0 as? SampleTool.Serve)?.port == 83)
        #expect(invoked(SampleTool.serving, ["--server", "x", "key", "list"])?.0 is SampleTool.KeyList)
        #expect(usageError(SampleTool.serving, ["serve"]) == UsageError(
            "unexpected argument 'serve'", usage: "served [--port <n>]", tool: "served", helpHint: "served --help"))
        #expect(usageError(SampleTool.serving, ["--port", "x"])?.message == "--port must be a number, got 'x'")
        #expect(usageError(SampleTool.serving, ["--prot", "1"])?.message == "unknown option '--prot'")
    }

    @Test func usageErrorsCarryTheUsageLineOfWhatTheyConcern() {
        #expect(usageError(SampleTool.tool, []) == UsageError(
            "missing command", usage: "sample [-v, --verbose] [--server <url>] <command> [<options>] [<arguments>]", tool: "sample",
            helpHint: "sample --help"))
        #expect(usageError(SampleTool.tool, ["frobnicate"])?.message == "unknown command 'frobnicate'")
        #expect(usageError(SampleTool.tool, ["--bogus", "copy"])?.message == "unknown option '--bogus'")
        #expect(usageError(SampleTool.tool, ["--server"])?.message == "option '--server' needs a value <url>")
        let copyUsage = "sample copy [--count <n>] <from> <to>"
        #expect(usageError(SampleTool.tool, ["copy", "x"]) == UsageError(
            "missing argument <to>", usage: copyUsage, tool: "sample", helpHint: "sample copy --help"))
        // Thrown by the command's own checks and by a declaration's conversion: completed the same way.
        #expect(usageError(SampleTool.tool, ["copy", "x", "x"])?.usage == copyUsage)
        #expect(usageError(SampleTool.tool, ["copy", "x", "y", "--count", "0"]) == UsageError(
            "--count '0' must be a positive whole number", usage: copyUsage, tool: "sample", helpHint: "sample copy --help"))
    }

    @Test func refusedOptionsAreRefusedWhereverTheyStand() {
        #expect(usageError(SampleTool.tool, ["--token", "t", "copy", "x", "y"])?.usage.hasPrefix("sample [-v") == true)
        let inCommand = usageError(SampleTool.tool, ["copy", "x", "y", "--token=t"])
        #expect(inCommand?.message == "there is no token option: set SAMPLE_TOKEN")
        #expect(inCommand?.usage == "sample copy [--count <n>] <from> <to>")
    }

    @Test func helpForTheToolGroupsAndCommands() {
        for arguments in [["--help"], ["-h"], ["help"], ["-v", "--help"]] {
            guard case .help(let text) = SampleTool.tool.parse(arguments) else {
                Issue.record("no help for \(arguments)")
                continue
            }
            #expect(text == SampleTool.tool.toolHelp)
        }
        for arguments in [["copy", "--help"], ["help", "copy"], ["copy", "x", "-h"], ["key", "add", "--help"], ["help", "key", "add"],
                          ["key", "--help"], ["help", "key"]] {
            guard case .help(let text) = SampleTool.tool.parse(arguments) else {
                Issue.record("no help for \(arguments)")
                continue
            }
            #expect(text.contains("USAGE: sample \(arguments.filter { !$0.hasPrefix("-") && $0 != "help" && $0 != "x" }.joined(separator: " "))"))
        }
        guard case .help(let served) = SampleTool.serving.parse(["--port", "1", "--help"]) else {
            Issue.record("no help for the default command")
            return
        }
        #expect(served == SampleTool.serving.toolHelp)
        #expect(usageError(SampleTool.tool, ["help", "frobnicate"])?.message == "unknown command 'frobnicate'")
        #expect(usageError(SampleTool.tool, ["copy", "x", "y", "--", "--help"])?.message == "unexpected argument '--help'")
    }
}
