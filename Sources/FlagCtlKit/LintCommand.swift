import CommandLineKit
import FlagKit

/// `flagctl lint FILE...`: validity plus the brief's review rules.
public struct LintCommand: Command {
    /// Name, abstract, options and arguments.
    public static let configuration = CommandConfiguration(
        name: "lint",
        abstract: "Check flag documents against the App Review rules of the monetization brief.",
        discussion: """
        Rules: \(LintRule.allCases.map(\.rawValue).joined(separator: ", ")).
        Prints 'FILE: /json/path: [rule] flag KEY: message' per finding and 'FILE: no findings' for a clean file.
        Exit status: 0 no findings, 1 findings, 2 a file cannot be read.
        """,
        options: [json],
        arguments: [ValidateCommand.files]
    )

    /// `--json`.
    static let json = Switch("json", help: "Print the findings as one JSON object per file, one per line.")

    /// The files, in the order given.
    public let files: [String]
    /// JSON output.
    public let json: Bool

    /// From the parsed command line.
    public init(parsed: ParsedArguments) throws(UsageError) {
        files = try parsed.values(ValidateCommand.files)
        json = parsed.isSet(Self.json)
    }

    /// Lints each file in turn; an unreadable file does not stop the others.
    public func run(_ context: RunContext) -> Int32 {
        FileReader.checkEach(files, context: context) { file, bytes in
            let findings = Linter.lint(bytes)
            if json {
                let object: JSONValue = ["file": .string(file), "findings": .array(findings.map(\.jsonValue))]
                context.print(object.canonicalString)
            } else if findings.isEmpty {
                context.print("\(file): no findings")
            } else {
                for finding in findings { context.print("\(file): \(finding)") }
            }
            return findings.isEmpty
        }
    }
}
