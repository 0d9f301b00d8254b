import CommandLineKit

/// What the sample tool's commands get at run time: where they write.
final class SampleContext {
    let output = BufferOutput()
}

/// A small tool with every shape the real ones use: plain commands, a group, a default command, global options.
enum SampleTool {
    static let verbose = Switch("verbose", short: "v", help: "Say more.")
    static let server = Option<String>("server", valueName: "url", help: "The server.", environment: "SAMPLE_SERVER")
    static let token = RefusedOption("token", reason: "there is no token option: set SAMPLE_TOKEN")

    /// `sample copy <from> <to> [--count <n>]`.
    struct Copy: ParsableCommand {
        static let count = Option("count", valueName: "n", help: "How many.") { text throws(UsageError) in
            guard let value = Int(text), value > 0 else { throw UsageError("--count '\(text)' must be a positive whole number") }
            return value
        }
        static let from = Argument("from", help: "The source.")
        static let to = Argument("to", help: "The target.")
        static let configuration = CommandConfiguration(name: "copy", abstract: "Copy one thing.", discussion: "Copies FROM to TO.",
                                                        options: [count], arguments: [from, to])
        let from: String
        let to: String
        let count: Int
        init(parsed: ParsedArguments) throws(UsageError) {
            from = try parsed.required(Self.from)
            to = try parsed.required(Self.to)
            count = try parsed.value(Self.count) ?? 1
            if from == to { throw UsageError("<from> and <to> are the same") }
        }
        func run(_ context: SampleContext) -> Int32 {
            context.output.write("copy \(from) \(to) \(count)\n")
            return 0
        }
    }

    /// `sample key add --name <name>`.
    struct KeyAdd: ParsableCommand {
        static let name = Option<String>("name", valueName: "name", help: "The key's name.", required: true)
        static let configuration = CommandConfiguration(name: "add", abstract: "Add a key.", options: [name])
        let name: String
        init(parsed: ParsedArguments) throws(UsageError) { name = try parsed.required(Self.name) }
        func run(_ context: SampleContext) -> Int32 { 0 }
    }

    /// `sample key list`.
    struct KeyList: ParsableCommand {
        static let configuration = CommandConfiguration(name: "list", abstract: "List the keys.")
        init(parsed: ParsedArguments) throws(UsageError) {}
        func run(_ context: SampleContext) -> Int32 { 0 }
    }

    /// What runs without a command: `sample [--port <n>]`.
    struct Serve: ParsableCommand {
        static let port = Option("port", valueName: "n", help: "The port.", environment: "SAMPLE_PORT") { text throws(UsageError) in
            guard let value = Int(text) else { throw UsageError("--port must be a number, got '\(text)'") }
            return value
        }
        static let configuration = CommandConfiguration(name: "", abstract: "Serve.", options: [port])
        let port: Int
        init(parsed: ParsedArguments) throws(UsageError) { port = try parsed.value(Self.port) ?? 80 }
        func run(_ context: SampleContext) -> Int32 { 0 }
    }

    static var keys: CommandGroup<SampleContext> {
        CommandGroup(name: "key", abstract: "Manage keys.", subcommands: [.command(KeyAdd.self), .command(KeyList.self)])
    }

    /// Commands only, like flagctl.
    static var tool: CommandLineTool<SampleContext> {
        CommandLineTool(name: "sample", abstract: "A sample tool.", discussion: "Exit status: 0 or 64.", globalOptions: [verbose, server, token],
                        subcommands: [.command(Copy.self), .group(keys)])
    }

    /// With a default command, like flagserver.
    static var serving: CommandLineTool<SampleContext> {
        CommandLineTool(name: "served", abstract: "A serving tool.", globalOptions: [server], subcommands: [.group(keys)],
                        defaultCommand: Serve.self)
    }
}
