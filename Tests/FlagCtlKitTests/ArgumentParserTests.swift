import Testing
@testable import FlagCtlKit

/// The parser on arrays: options, flags, positionals, and each refusal.
@Suite struct ArgumentParserTests {
    let options: [OptionSpec] = [
        .flag("json", help: ""),
        .value("sample", "n", help: ""),
        .value("context", "key=value", help: "", repeatable: true),
    ]

    @Test func optionsAnywhereBothSpellingsAndRepeats() throws {
        let parsed = try ArgumentParser.parse(["a.json", "--sample", "10", "--json", "--context=x=1", "--context", "y=2", "b.json"],
                                              options: options, arguments: [ArgumentSpec("a", help: ""), ArgumentSpec("b", help: "")])
        #expect(parsed.argument("a") == "a.json")
        #expect(parsed.argument("b") == "b.json")
        #expect(parsed.value("sample") == "10")
        #expect(parsed.flag("json"))
        #expect(parsed.values("context") == ["x=1", "y=2"])
    }

    @Test func doubleDashEndsOptionsAndDashIsAnArgument() throws {
        let parsed = try ArgumentParser.parse(["-", "--", "--json"], options: options,
                                              arguments: [ArgumentSpec("file", .oneOrMore, help: "")])
        #expect(parsed.arguments("file") == ["-", "--json"])
        #expect(!parsed.flag("json"))
    }

    @Test func optionalArgumentYieldsToRequiredOnes() throws {
        let arguments = [ArgumentSpec("file", help: ""), ArgumentSpec("flag", .optional, help: "")]
        #expect(try ArgumentParser.parse(["f"], options: [], arguments: arguments).argument("flag") == nil)
        #expect(try ArgumentParser.parse(["f", "x"], options: [], arguments: arguments).argument("flag") == "x")
        let variadicFirst = [ArgumentSpec("files", .oneOrMore, help: ""), ArgumentSpec("target", help: "")]
        let parsed = try ArgumentParser.parse(["a", "b", "c"], options: [], arguments: variadicFirst)
        #expect(parsed.arguments("files") == ["a", "b"])
        #expect(parsed.argument("target") == "c")
    }

    @Test(arguments: [
        (["--bogus", "a", "b"], "unknown option '--bogus'"),
        (["-x", "a", "b"], "unknown option '-x'"),
        (["--json=yes", "a", "b"], "option '--json' takes no value"),
        (["--json", "--json", "a", "b"], "option '--json' given more than once"),
        (["--sample", "1", "--sample", "2", "a", "b"], "option '--sample' given more than once"),
        (["a", "b", "--sample"], "option '--sample' needs a value <n>"),
        (["a"], "missing argument <b>"),
        (["a", "b", "c"], "unexpected argument 'c'"),
    ])
    func refusals(tokens: [String], message: String) {
        #expect(throws: UsageError(message)) {
            try ArgumentParser.parse(tokens, options: options, arguments: [ArgumentSpec("a", help: ""), ArgumentSpec("b", help: "")])
        }
    }

    @Test func missingVariadicArgument() {
        #expect(throws: UsageError("missing argument <file>")) {
            try ArgumentParser.parse([], options: [], arguments: [ArgumentSpec("file", .oneOrMore, help: "")])
        }
    }

    @Test func helpIsFoundBeforeDoubleDashOnly() {
        #expect(ArgumentParser.asksForHelp(["a", "-h"]))
        #expect(ArgumentParser.asksForHelp(["--help"]))
        #expect(!ArgumentParser.asksForHelp(["--", "--help"]))
    }

    @Test func usageLineListsOptionsAndArguments() {
        let configuration = CommandConfiguration(name: "x", abstract: "", options: options,
                                                 arguments: [ArgumentSpec("file", .oneOrMore, help: ""), ArgumentSpec("flag", .optional, help: "")])
        #expect(configuration.usage == "flagctl x [--json] [--sample <n>] [--context <key=value> ...] <file>... [<flag>]")
    }
}
