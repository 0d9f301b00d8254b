@testable import CommandLineKit
import Testing

/// The help check (`helpProblems`) finds a usage line that does not say what the parser takes, and only that.
@Suite struct CommandLineToolHelpCheckTests {
    @Test func theCheckFindsAnAbstractThatNamesAnOptionsValue() {
        struct Revoke: ParsableCommand {
            static let configuration = CommandConfiguration(name: "revoke", abstract: "Revoke the token NAME.", options: [name])
            static let name = Option<String>("name", valueName: "name", help: "The name.", required: true)
            init(parsed: ParsedArguments) throws(UsageError) { _ = try parsed.required(Self.name) }
            func run(_ context: Void) -> Int32 { 0 }
        }
        struct Show: ParsableCommand {
            static let configuration = CommandConfiguration(name: "show", abstract: "Show it.", arguments: [id])
            static let id = Argument("id", help: "An id.") { text throws(UsageError) in
                guard let number = Int(text) else { throw UsageError("'\(text)' is not a number") }
                return number
            }
            init(parsed: ParsedArguments) throws(UsageError) { _ = try parsed.required(Self.id) }
            func run(_ context: Void) -> Int32 { 0 }
        }
        let tool = CommandLineTool<Void>(name: "t", abstract: "", subcommands: [.command(Revoke.self), .command(Show.self)])
        let problems = tool.helpProblems(examples: [:])
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.contains { $0.contains("the abstract names NAME") })
        #expect(problems.contains { $0.contains("'t show x' is refused: 'x' is not a number") })
        #expect(tool.helpProblems(examples: ["id": "7"]).count == 1)
    }

    @Test func usageItemsKeepAnOptionWithItsValueAndBracketsWhole() {
        let items = CommandLineTool<Void>.usageItems("t token create --name <name> [--env <name>] <a> [<b>]", after: 3)
        #expect(items == ["--name <name>", "[--env <name>]", "<a>", "[<b>]"])
        #expect(CommandLineTool<Void>.example(of: "--role <reader|writer|admin>", [:]) == ["--role", "reader"])
    }
}
