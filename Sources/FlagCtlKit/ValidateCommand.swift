import CommandLineKit
import FlagKit

/// `flagctl validate FILE...`: every problem of every file with its JSON path.
public struct ValidateCommand: Command {
    /// Name, abstract and arguments.
    public static let configuration = CommandConfiguration(
        name: "validate",
        abstract: "Check flag documents and list every problem with its JSON path.",
        discussion: """
        Prints 'FILE: /json/path: message' for each problem and 'FILE: valid' for a valid file.
        Exit status: 0 when all files are valid, 1 when any has problems, 2 when a file cannot be read.
        """,
        arguments: [files]
    )

    /// `<file>...`.
    static let files = Argument("file", .oneOrMore, help: "A flag document (JSON); '-' reads standard input.")

    /// The files, in the order given.
    public let files: [String]

    /// From the parsed command line.
    public init(parsed: ParsedArguments) throws(UsageError) {
        files = try parsed.values(Self.files)
    }

    /// Validates each file in turn; an unreadable file does not stop the others.
    public func run(_ context: RunContext) -> Int32 {
        FileReader.checkEach(files, context: context) { file, bytes in
            let problems = FlagDocument.problems(in: bytes)
            if problems.isEmpty {
                context.print("\(file): valid")
            } else {
                for problem in problems { context.print("\(file): \(problem)") }
            }
            return problems.isEmpty
        }
    }
}
