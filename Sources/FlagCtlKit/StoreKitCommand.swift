import CommandLineKit
import FlagKit

/// `flagctl storekit check FILE.storekit FLAGS.json...`: the StoreKit configuration file against the product catalogue
/// and the flag documents (``StoreKitCheck``).
public struct StoreKitCommand: Command {
    /// Name, abstract and arguments.
    public static let configuration = CommandConfiguration(
        name: "storekit",
        abstract: "Check the StoreKit configuration file against the product catalogue and flag documents.",
        discussion: """
        'flagctl storekit check FILE.storekit FLAGS.json...'. Every product id the flags offer (subscriptionProductIds, \
        its default and every rule's value) must be a subscription of the "Symi Plus" group in the StoreKit file and in \
        the catalogue; the group and its subscriptions need German localizations; copy that promises "free", "kostenlos" \
        or "gratis" needs a free introductory offer among the products of every list the flags offer.
        Rules: \(StoreKitRule.allCases.map(\.rawValue).joined(separator: ", ")).
        Prints 'FILE: /json/path: [rule] message' per finding and 'FILE: no findings' for each clean file.
        Exit status: 0 no findings, 1 findings, 2 a file cannot be read or parsed.
        """,
        arguments: [action, storeKitFileArgument, flagFilesArgument]
    )

    /// `check`, the only action.
    static let action = Argument("action", help: "check (the only action).")
    /// The `.storekit` file.
    static let storeKitFileArgument = Argument("storekit-file", help: "The StoreKit configuration file (.storekit, as Xcode writes it).")
    /// The flag documents.
    static let flagFilesArgument = Argument("flags-file", .oneOrMore, help: "A flag document (JSON).")

    /// The StoreKit file.
    public let storeKitFile: String
    /// The flag documents, in the order given.
    public let flagFiles: [String]

    /// From the parsed command line; any action but `check` is a usage error.
    public init(parsed: ParsedArguments) throws(UsageError) {
        let action = try parsed.required(Self.action)
        guard action == "check" else { throw UsageError("unknown storekit action '\(action)' (expected 'check')") }
        storeKitFile = try parsed.required(Self.storeKitFileArgument)
        flagFiles = try parsed.values(Self.flagFilesArgument)
    }

    /// Checks the StoreKit file, then each flags file against it; an unreadable flags file does not stop the others.
    public func run(_ context: RunContext) -> Int32 {
        guard let configuration = StoreKitConfiguration.load(storeKitFile, context) else { return ExitStatus.trouble }
        var status = report(StoreKitCheck.check(configuration, file: storeKitFile), for: storeKitFile, context: context)
        for file in flagFiles {
            let document: FlagDocument
            do {
                document = try DocumentOperand.file(file).load(context.globals).document
            } catch {
                context.error(error.description)
                status = ExitStatus.trouble
                continue
            }
            let findings = StoreKitCheck.check(document, file: file, against: configuration, storeKitFile: storeKitFile)
            let fileStatus = report(findings, for: file, context: context)
            if status == ExitStatus.success { status = fileStatus }
        }
        return status
    }

    /// Prints the findings (or 'FILE: no findings') and returns 0 or 1.
    private func report(_ findings: [StoreKitFinding], for file: String, context: RunContext) -> Int32 {
        if findings.isEmpty {
            context.print("\(file): no findings")
            return ExitStatus.success
        }
        for finding in findings { context.print(finding.description) }
        return ExitStatus.failure
    }
}
