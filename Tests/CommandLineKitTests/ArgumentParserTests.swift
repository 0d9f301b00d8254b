import Testing
@testable import CommandLineKit

/// The parser on arrays: options, switches, positionals, environment fallbacks, and each refusal.
@Suite struct ArgumentParserTests {
    static let json = Switch("json", help: "")
    static let sample = Option("sample", valueName: "n", help: "") { text throws(UsageError) in
        guard let value = Int(text) else { throw UsageError("--sample '\(text)' is not a number") }
        return value
    }
    static let context = Option<String>("context", valueName: "key=value", help: "", repeatable: true)
    static let message = Option<String>("message", valueName: "text", short: "m", help: "")
    let options: [any OptionDeclaration] = [json, sample, context, message]
    static let a = Argument("a", help: "")
    static let b = Argument("b", help: "")

    private func parse(_ tokens: [String], environment: [String: String] = [:]) throws(UsageError) -> ParsedArguments {
        try ArgumentParser.parse(tokens, options: options, arguments: [Self.a, Self.b], environment: environment)
    }

    @Test func optionsAnywhereBothSpellingsAndRepeats() throws {
        let parsed = try parse(["a.json", "--sample", "10", "--json", "--context=x=1", "--context", "y=2", "-m", "why", "b.json"])
        #expect(try parsed.required(Self.a) == "a.json")
        #expect(try parsed.required(Self.b) == "b.json")
        #expect(try parsed.value(Self.sample) == 10)
        #expect(parsed.isSet(Self.json))
        #expect(try parsed.values(Self.context) == ["x=1", "y=2"])
        #expect(try parsed.value(Self.context) == "y=2")
        #expect(try parsed.value(Self.message) == "why")
    }

    @Test func doubleDashEndsOptionsAndDashIsAnArgument() throws {
        let files = Argument("file", .oneOrMore, help: "")
        let parsed = try ArgumentParser.parse(["-", "--", "--json"], options: options, arguments: [files])
        #expect(try parsed.values(files) == ["-", "--json"])
        #expect(!parsed.isSet(Self.json))
    }

    @Test func optionalArgumentYieldsToRequiredOnes() throws {
        let file = Argument("file", help: "")
        let flag = Argument("flag", .optional, help: "")
        #expect(try ArgumentParser.parse(["f"], options: [], arguments: [file, flag]).value(flag) == nil)
        #expect(try ArgumentParser.parse(["f", "x"], options: [], arguments: [file, flag]).value(flag) == "x")
        let files = Argument("files", .oneOrMore, help: "")
        let target = Argument("target", help: "")
        let parsed = try ArgumentParser.parse(["a", "b", "c"], options: [], arguments: [files, target])
        #expect(try parsed.values(files) == ["a", "b"])
        #expect(try parsed.required(target) == "c")
    }

    @Test(arguments: [
        (["--bogus", "a", "b"], "unknown option '--bogus'"),
        (["--bogus=1", "a", "b"], "unknown option '--bogus'"),
        (["-x", "a", "b"], "unknown option '-x'"),
        (["--json=yes", "a", "b"], "option '--json' takes no value"),
        (["--json", "--json", "a", "b"], "option '--json' given more than once"),
        (["--sample", "1", "--sample", "2", "a", "b"], "option '--sample' given more than once"),
        (["a", "b", "--sample"], "option '--sample' needs a value <n>"),
        (["a", "b", "-m", "--json"], "option '--message' needs a value <text>"),
        (["a", "b", "--message", "-m"], "option '--message' needs a value <text>"),
        (["a"], "missing argument <b>"),
        (["a", "b", "c"], "unexpected argument 'c'"),
    ])
    func refusals(tokens: [String], message: String) {
        #expect(throws: UsageError(message)) { try parse(tokens) }
    }

    @Test func aValueThatOnlyLooksLikeAnOptionIsAValue() throws {
        let parsed = try parse(["a", "b", "-m", "--not-an-option", "--sample", "-5"])
        #expect(try parsed.value(Self.message) == "--not-an-option")
        #expect(try parsed.value(Self.sample) == -5)
    }

    @Test func missingVariadicArgument() {
        #expect(throws: UsageError("missing argument <file>")) {
            try ArgumentParser.parse([], options: [], arguments: [Argument("file", .oneOrMore, help: "")])
        }
    }

    @Test func environmentFillsWhatTheCommandLineDoesNotGive() throws {
        let host = Option<String>("host", valueName: "address", help: "", environment: "HOST_VARIABLE")
        let strict = Switch("strict", help: "", environment: "STRICT_VARIABLE")
        let declared: [any OptionDeclaration] = [host, strict]
        let fromEnvironment = try ArgumentParser.parse([], options: declared, arguments: [],
                                                       environment: ["HOST_VARIABLE": "0.0.0.0", "STRICT_VARIABLE": "Yes"])
        #expect(try fromEnvironment.value(host) == "0.0.0.0")
        #expect(fromEnvironment.origin(of: host) == .environment("HOST_VARIABLE"))
        #expect(fromEnvironment.isSet(strict))
        let optionsWin = try ArgumentParser.parse(["--host", "::"], options: declared, arguments: [],
                                                  environment: ["HOST_VARIABLE": "0.0.0.0", "STRICT_VARIABLE": "0"])
        #expect(try optionsWin.value(host) == "::")
        #expect(optionsWin.origin(of: host) == .commandLine)
        #expect(!optionsWin.isSet(strict))
        #expect(optionsWin.origin(of: strict) == nil)
    }

    @Test func repeatableOptionsReplaceTheirVariableInsteadOfAddingToIt() throws {
        let proxy = Option<String>("proxy", valueName: "address", help: "", repeatable: true, environment: "PROXIES")
        let environment = ["PROXIES": "10.0.0.1,10.0.0.2"]
        #expect(try ArgumentParser.parse([], options: [proxy], arguments: [], environment: environment).values(proxy) == ["10.0.0.1,10.0.0.2"])
        let given = try ArgumentParser.parse(["--proxy", "a", "--proxy", "b"], options: [proxy], arguments: [], environment: environment)
        #expect(try given.values(proxy) == ["a", "b"])
    }

    @Test func requiredOptionsAndRefusedOnes() throws {
        let to = Option<String>("to", valueName: "file", help: "", required: true)
        #expect(throws: UsageError("missing option '--to <file>'")) { try ArgumentParser.parse([], options: [to], arguments: []) }
        let fromVariable = Option<String>("to", valueName: "file", help: "", required: true, environment: "TARGET")
        #expect(try ArgumentParser.parse([], options: [fromVariable], arguments: [], environment: ["TARGET": "x"]).required(fromVariable) == "x")
        let token = RefusedOption("token", reason: "use the variable")
        #expect(throws: UsageError("use the variable")) { try ArgumentParser.parse(["--token=x"], options: [token], arguments: []) }
        #expect(throws: UsageError("use the variable")) { try ArgumentParser.parse(["--token"], options: [token], arguments: []) }
    }

    @Test func helpIsFoundBeforeDoubleDashOnly() {
        #expect(ArgumentParser.asksForHelp(["a", "-h"]))
        #expect(ArgumentParser.asksForHelp(["--help"]))
        #expect(!ArgumentParser.asksForHelp(["--", "--help"]))
    }
}
