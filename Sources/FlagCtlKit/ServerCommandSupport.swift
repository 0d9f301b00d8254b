import CommandLineKit
import FlagKit

/// What the commands that talk to the server share: argument checks, the confirmation prompt, and
/// turning every failure into one line on standard error with exit status 2.
enum ServerCommandSupport {
    /// `--message`/`-m`, required and not blank: every change on the server records why.
    static let messageOption = makeMessageOption(missing: missingMessage)
    /// The same, shown as optional: a command that needs it only sometimes (a publish, unless a dry run) asks
    /// `message(_:)` itself.
    static let optionalMessageOption = makeMessageOption(missing: nil)
    /// What a command line without the message is told.
    static let missingMessage = "missing -m/--message: say why, it is recorded with the change"

    private static func makeMessageOption(missing: String?) -> Option<String> {
        Option("message", valueName: "text", short: "m", help: "Why: recorded with the new version (required).", missing: missing) {
            text throws(UsageError) in
            guard !text.allSatisfy(\.isWhitespace) else { throw UsageError("the message must not be blank") }
            return text
        }
    }

    /// `--yes`: publish without asking.
    static let yesOption = Switch("yes", short: "y", help: "Do not ask for confirmation (needed when standard input is not a terminal).")

    /// `--limit N`, a whole number from 1 to `maximum`; `help` says of what and the default.
    static func limitOption(_ help: String, maximum: Int = 1000) -> Option<Int> {
        Option("limit", valueName: "n", help: help) { text throws(UsageError) in
            guard let value = Int(text), (1...maximum).contains(value) else {
                throw UsageError("--limit '\(text)' must be a whole number from 1 to \(maximum)")
            }
            return value
        }
    }

    /// The environment argument (`<env>`), checked against the server's naming rule.
    static let environmentArgument = Argument("env", help: "The environment (production).") { text throws(UsageError) in
        try environment(text)
    }

    /// An environment name, checked against the server's naming rule.
    static func environment(_ name: String) throws(UsageError) -> String {
        guard DocumentOperand.isEnvironmentName(name[...]) else {
            throw UsageError("'\(name)' is not an environment name (lowercase letters, digits and '-')")
        }
        return name
    }

    /// The message, required and not blank.
    static func message(_ parsed: ParsedArguments) throws(UsageError) -> String {
        guard let message = try parsed.value(messageOption) else { throw UsageError(missingMessage) }
        return message
    }

    /// Runs `body` with a client for the configured server; a failure prints its line(s) and gives 2.
    static func run(_ context: RunContext, _ body: (ServerClient) throws(CommandFailure) -> Int32) -> Int32 {
        do throws(CommandFailure) {
            let client: ServerClient
            do {
                client = try ServerClient(globals: context.globals)
            } catch {
                throw .server(error)
            }
            return try body(client)
        } catch {
            context.error(error.description)
            return ExitStatus.trouble
        }
    }

    /// Runs one server call, wrapping its error.
    static func call<T>(_ body: () throws(ServerError) -> T) throws(CommandFailure) -> T {
        do {
            return try body()
        } catch {
            throw .server(error)
        }
    }

    /// What the person said.
    enum Confirmation: Equatable {
        /// Go ahead.
        case proceed
        /// They said no (or nothing).
        case declined
        /// Nobody can be asked and `--yes` was not given.
        case cannotAsk
    }

    /// Asks `question [y/N]` on standard error and reads the answer, unless `--yes` was given.
    /// Without a terminal on standard input there is nobody to ask: refused rather than assumed.
    static func confirm(_ question: String, yes: Bool, _ context: RunContext) -> Confirmation {
        if yes { return .proceed }
        guard context.input.isTerminal else { return .cannotAsk }
        context.stderr.write("\(question) [y/N] ")
        guard let answer = context.input.readLine()?.trimmingCharacters(in: .whitespaces).lowercased() else { return .declined }
        return answer == "y" || answer == "yes" ? .proceed : .declined
    }

    /// Handles a negative confirmation; nil to go ahead, else the exit status.
    static func confirmed(_ question: String, yes: Bool, _ context: RunContext) -> Int32? {
        switch confirm(question, yes: yes, context) {
        case .proceed:
            return nil
        case .declined:
            context.print("nothing was changed")
            return ExitStatus.failure
        case .cannotAsk:
            context.error("standard input is not a terminal, so nobody can confirm: pass --yes to go ahead; nothing was changed")
            return ExitStatus.trouble
        }
    }

    /// A write the server answered with 202: prints the change request and gives `ExitStatus.needsApproval`.
    static func requested(_ answer: WriteAnswer, _ context: RunContext) -> Int32 {
        if case .requested(let proposal) = answer { ChangeRendering.printRequest(proposal, context) }
        return ExitStatus.needsApproval
    }

    /// `version 7 by ci at 2026-11-29T15:30:00.123Z: message`.
    static func summary(_ version: PublishedVersion) -> String {
        "version \(version.version) by \(version.author) at \(version.publishedAt): \(version.message)"
    }
}
