/// A command: a struct with a configuration, built from the parsed command line (where it checks and converts
/// its values, throwing a usage error for what it cannot use), and a `run` that returns the exit status.
///
/// `Context` is what the tool hands every command at run time (output streams, global options).
public protocol ParsableCommand<Context> {
    /// What the tool hands the command at run time.
    associatedtype Context

    /// Name, abstract, options and arguments.
    static var configuration: CommandConfiguration { get }

    /// The command from its parsed options and arguments; throws when a value is unusable (`--sample abc`),
    /// which the tool reports as a usage error (exit 64).
    init(parsed: ParsedArguments) throws(UsageError)

    /// Does the work; returns the exit status.
    func run(_ context: Context) -> Int32
}
