/// A command line the tool cannot run: what is wrong, and the usage line of the command it concerns.
///
/// A tool prints it on standard error (``report``) and exits with ``exitStatus`` (64, `EX_USAGE` from sysexits.h).
/// The parser and commands throw it with the message only; the tool fills in where it happened.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `EX_USAGE` from sysexits.h: the command line is wrong.
    public static let exitStatus: Int32 = 64

    /// What is wrong, e.g. `unknown option '--bogus'`.
    public let message: String
    /// The usage line of the command (or of the tool) it concerns; empty until the tool fills it.
    public var usage: String
    /// The tool's name (`flagctl`), which starts the error line; empty until the tool fills it.
    public var tool: String
    /// The command that shows the relevant help (`flagctl diff --help`); empty until the tool fills it.
    public var helpHint: String

    /// An error; the tool fills in what is left empty.
    public init(_ message: String, usage: String = "", tool: String = "", helpHint: String = "") {
        self.message = message
        self.usage = usage
        self.tool = tool
        self.helpHint = helpHint
    }

    /// `flagctl: error: ...`, `Usage: ...` and `See 'flagctl diff --help'.` on three lines.
    public var description: String {
        var lines = ["\(tool.isEmpty ? "" : "\(tool): ")error: \(message)"]
        if !usage.isEmpty { lines.append("Usage: \(usage)") }
        if !helpHint.isEmpty { lines.append("See '\(helpHint)'.") }
        return lines.joined(separator: "\n")
    }

    /// What the tool writes to standard error: ``description`` and a newline.
    public var report: String { description + "\n" }

    /// The error with the empty parts taken from `context` (an error that already names its usage keeps it).
    func completed(by context: UsageError) -> UsageError {
        var error = self
        if error.usage.isEmpty { error.usage = context.usage }
        if error.tool.isEmpty { error.tool = context.tool }
        if error.helpHint.isEmpty { error.helpHint = context.helpHint }
        return error
    }
}
