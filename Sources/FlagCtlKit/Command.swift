import CommandLineKit
import Foundation

/// A `flagctl` command: a struct with a configuration (name, abstract, its typed option and argument declarations),
/// built from the parsed command line, and a `run` that writes to the context's streams and returns the exit status.
/// Adding a command is writing one such struct and listing it in ``FlagCtl/commands``.
public typealias Command = ParsableCommand<RunContext>

/// Exit statuses: diff(1)'s 0/1/2 and BSD sysexits' `EX_USAGE`.
public enum ExitStatus {
    /// Success; for `diff`: the two sides are the same.
    public static let success: Int32 = 0
    /// Problems or findings were found; for `diff`: the sides differ.
    public static let failure: Int32 = 1
    /// Trouble: a file could not be read, a document is invalid where a valid one was needed.
    public static let trouble: Int32 = 2
    /// Nothing was published: the change touches a protected flag and waits for a second person's approval
    /// (the server answered 202 with a change request). A script must not take it for a publish.
    public static let needsApproval: Int32 = 3
    /// The command line is wrong (`EX_USAGE` from sysexits.h).
    public static let usage: Int32 = UsageError.exitStatus
}

/// Options every command accepts, and what comes from the environment.
public struct GlobalOptions: Sendable, Equatable {
    /// The flag server (`--server URL`, else `FLAGCTL_SERVER`), for commands that talk to one.
    public var server: URL?
    /// The API token, only ever from `FLAGCTL_TOKEN`: a command-line flag would land in shell history.
    public var token: String?

    /// Options as given.
    public init(server: URL? = nil, token: String? = nil) {
        self.server = server
        self.token = token
    }

    /// `--server URL`, accepted before and after the command's name; `FLAGCTL_SERVER` when not given.
    public static let serverOption = Option<String>("server", valueName: "url", help: "The flag server's base URL (the token comes from $FLAGCTL_TOKEN only).",
                                                    environment: "FLAGCTL_SERVER")

    /// `--token` is refused wherever it stands: a token on the command line lands in shell history.
    public static let tokenOption = RefusedOption(
        "token", reason: "there is no token option: set FLAGCTL_TOKEN instead (a token on the command line lands in shell history)")

    /// Resolves the parsed global options against the environment.
    static func resolve(_ parsed: ParsedArguments, environment: [String: String]) throws(UsageError) -> GlobalOptions {
        var options = GlobalOptions()
        let fromCommandLine = parsed.origin(of: serverOption) == .commandLine
        // An empty FLAGCTL_SERVER counts as unset; an empty --server is a mistake worth naming.
        if let text = try parsed.value(serverOption), fromCommandLine || !text.isEmpty {
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
                  let host = url.host, !host.isEmpty
            else {
                throw parsed.usageError("\(fromCommandLine ? "server" : "FLAGCTL_SERVER") '\(text)' is not an http or https URL")
            }
            options.server = url
        }
        options.token = environment["FLAGCTL_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        return options
    }
}

/// Where a command writes and what it knows about its surroundings; tests pass buffers.
public final class RunContext {
    /// The global options.
    public let globals: GlobalOptions
    /// Normal output.
    public let stdout: TextOutput
    /// Errors and diagnostics.
    public let stderr: TextOutput
    /// Whether standard output is a terminal, which decides coloring.
    public let stdoutIsTerminal: Bool
    /// The process environment (`NO_COLOR`, ...).
    public let environment: [String: String]
    /// Where confirmations are read from (standard input in the tool; nothing in in-process tests).
    public let input: LineInput

    /// A context.
    public init(globals: GlobalOptions, stdout: TextOutput, stderr: TextOutput, stdoutIsTerminal: Bool, environment: [String: String],
                input: LineInput = NoInput()) {
        self.globals = globals
        self.stdout = stdout
        self.stderr = stderr
        self.stdoutIsTerminal = stdoutIsTerminal
        self.environment = environment
        self.input = input
    }

    /// Colors on a terminal unless `NO_COLOR` is set (https://no-color.org).
    public var usesColor: Bool { stdoutIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty }

    /// Writes one line to standard output.
    public func print(_ line: String) { stdout.write(line + "\n") }

    /// Writes `flagctl: message` to standard error.
    public func error(_ message: String) { stderr.write("flagctl: \(message)\n") }
}

/// Where a command reads a confirmation from.
public protocol LineInput: AnyObject {
    /// Whether a person can answer (a terminal), so asking makes sense.
    var isTerminal: Bool { get }
    /// One line without its newline; nil at end of input.
    func readLine() -> String?
}

/// No input at all: not a terminal, and at end.
public final class NoInput: LineInput {
    /// Nothing to read.
    public init() {}
    /// Never a terminal.
    public var isTerminal: Bool { false }
    /// Always at end.
    public func readLine() -> String? { nil }
}
