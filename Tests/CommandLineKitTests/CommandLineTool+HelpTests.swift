import Testing
@testable import CommandLineKit

/// Usage lines and help texts as the tools print them.
@Suite struct CommandLineToolHelpTests {
    @Test func usageLines() {
        #expect(SampleTool.tool.toolUsage == "sample [-v, --verbose] [--server <url>] <command> [<options>] [<arguments>]")
        #expect(SampleTool.serving.toolUsage == "served [--server <url>] [<command>] [<options>] [<arguments>]")
        #expect(SampleTool.tool.usage(of: SampleTool.Copy.self) == "sample copy [--count <n>] <from> <to>")
        #expect(SampleTool.tool.usage(of: SampleTool.KeyAdd.self) == "sample key add --name <name>")
        #expect(SampleTool.serving.usage(of: SampleTool.Serve.self) == "served [--port <n>]")
    }

    @Test func toolHelpListsCommandsWithTheirWordsAndTheGlobalOptions() {
        let text = SampleTool.tool.toolHelp
        #expect(text.hasPrefix("OVERVIEW: A sample tool.\n\nExit status: 0 or 64.\n\nUSAGE: \(SampleTool.tool.toolUsage)\n"))
        #expect(text.contains("\nCOMMANDS:\n  copy      Copy one thing.\n  key add   Add a key.\n  key list  List the keys.\n"))
        #expect(text.contains("\nGLOBAL OPTIONS:\n  -v, --verbose   Say more.\n  --server <url>  The server. (env: SAMPLE_SERVER)\n  -h, --help      Show help.\n"))
        #expect(!text.contains("token"), "a refused option is not advertised")
        #expect(text.hasSuffix("See 'sample help <command>' or 'sample <command> --help' for a command's options.\n"))
    }

    @Test func theDefaultCommandsOptionsAreTheToolsOwn() {
        let text = SampleTool.serving.toolHelp
        #expect(text.contains("USAGE: served [--port <n>]\n       served [--server <url>] <command> [<options>] [<arguments>]\n"))
        #expect(text.contains("\nOPTIONS:\n  --port <n>  The port. (env: SAMPLE_PORT)\n"))
        #expect(text.contains("  key add   Add a key.\n"))
    }

    @Test func commandAndGroupHelp() {
        let copy = SampleTool.tool.help(for: SampleTool.Copy.self)
        #expect(copy == """
            OVERVIEW: Copy one thing.

            Copies FROM to TO.

            USAGE: sample copy [--count <n>] <from> <to>

            ARGUMENTS:
              <from>  The source.
              <to>    The target.

            OPTIONS:
              --count <n>  How many.

            GLOBAL OPTIONS:
              -v, --verbose   Say more.
              --server <url>  The server. (env: SAMPLE_SERVER)
              -h, --help      Show help.

            """)
        guard case .help(let group) = SampleTool.tool.parse(["key", "--help"]) else {
            Issue.record("no group help")
            return
        }
        #expect(group.contains("USAGE: sample key <command> [<options>] [<arguments>]\n\nCOMMANDS:\n  add   Add a key.\n  list  List the keys.\n"))
        #expect(SampleTool.serving.help(for: SampleTool.Serve.self) == SampleTool.serving.toolHelp)
    }
}
