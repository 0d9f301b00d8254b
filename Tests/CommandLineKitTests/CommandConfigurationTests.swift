import Testing
@testable import CommandLineKit

/// A command's synopsis: its options (collapsed when there are many) and arguments.
@Suite struct CommandConfigurationTests {
    @Test func synopsisListsOptionsAndArguments() {
        let configuration = CommandConfiguration(
            name: "x", abstract: "",
            options: [Switch("json", help: ""), Option<String>("sample", valueName: "n", help: ""),
                      Option<String>("context", valueName: "key=value", help: "", repeatable: true), RefusedOption("token", reason: "no")],
            arguments: [Argument("file", .oneOrMore, help: ""), Argument("flag", .optional, help: "")])
        #expect(configuration.synopsis == "[--json] [--sample <n>] [--context <key=value> ...] <file>... [<flag>]")
    }

    @Test func manyOptionsCollapseButRequiredOnesStay() {
        let many: [any OptionDeclaration] = (0..<CommandConfiguration.usageOptionLimit).map { Switch("f\($0)", help: "") }
            + [Option<String>("to", valueName: "file", help: "", required: true)]
        #expect(CommandConfiguration(name: "x", abstract: "", options: many).synopsis == "--to <file> [<options>]")
        #expect(CommandConfiguration(name: "x", abstract: "").synopsis == "")
    }
}
