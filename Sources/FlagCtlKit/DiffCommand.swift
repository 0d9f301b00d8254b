import CommandLineKit
import FlagKit

/// `flagctl diff A B`: what changes from A to B, and with `--impact` for how many installs.
public struct DiffCommand: Command {
    /// Name, abstract, options and arguments.
    public static let configuration = CommandConfiguration(
        name: "diff",
        abstract: "Show what changes from one flag document to another, and for how many installs.",
        discussion: """
        A and B are each a flag document file, an environment on the server (production: what it serves
        now) or a published version (production@41). With one argument, a file, the diff is from what the
        server serves now for the environment named by the file (flags/production.json: production, or
        --env) to the file: what publishing the file would change. The diff lists flags and cohorts added (+), removed (-) and
        changed (~), and for a changed flag which type, default, salt, prerequisite or rule changed from
        what to what. It is colored when standard output is a terminal (unless NO_COLOR is set).
        --impact evaluates both sides for a deterministic sample of installs and prints, per flag, the
        share that would see a different value. Without --contexts the installs are generated from the
        seed: a random install id each, and every attribute the cohorts mention drawn uniformly from the
        values they compare against, values just beside each bound, absent, and one that matches nothing;
        an install date (firstInstallDate, or any attribute compared with before/after) is unknown for 5 %,
        a bound or 1 ms beside one for 5 %, and otherwise a second drawn uniformly from two years before the
        earliest bound to one year after the latest.
        Exit status as diff(1): 0 same, 1 different, 2 trouble.
        """,
        options: [jsonSwitch, impactSwitch, sampleOption, contextsOption, seedOption, environmentOption],
        arguments: [first, second]
    )

    /// `--json`.
    static let jsonSwitch = Switch("json", help: "Print the diff (and impact) as one JSON object.")
    /// `--impact`.
    static let impactSwitch = Switch("impact", help: "Count, per flag, the sampled installs that would see a different value.")
    /// `--sample N`, 1 to 10,000,000.
    static let sampleOption = Option("sample", valueName: "n", help: "Installs in the impact sample (default: 100000).") { text throws(UsageError) in
        guard let value = Int(text), value > 0, value <= 10_000_000 else {
            throw UsageError("--sample '\(text)' must be a whole number from 1 to 10000000")
        }
        return value
    }
    /// `--contexts FILE`.
    static let contextsOption = Option<String>(
        "contexts", valueName: "file", help: "JSON lines of context objects; installs cycle through them, repeats get fresh install ids.")
    /// `--seed N`, within Int64's range, so the seed survives a round trip through JSON (`impact.seed`) unchanged.
    static let seedOption = Option("seed", valueName: "n", help: "Seed of the generated install ids and attributes (default: \(ImpactSample.defaultSeed)).") {
        text throws(UsageError) in
        guard let value = Int64(text), value >= 0 else { throw UsageError("--seed '\(text)' must be a non-negative whole number") }
        return UInt64(value)
    }
    /// `--env NAME`, for the one-argument form.
    static let environmentOption = Option<String>(
        "env", valueName: "name", help: "With one file argument: the environment to compare it with (default: the file's name).")
    /// The old side.
    static let first = Argument("a", help: "The old side: a file, ENV or ENV@N (alone: the file to compare with the server).") {
        text throws(UsageError) in try DocumentOperand(text)
    }
    /// The new side.
    static let second = Argument("b", .optional, help: "The new side: a file, ENV or ENV@N.") { text throws(UsageError) in
        try DocumentOperand(text)
    }

    /// The old side.
    public let old: DocumentOperand
    /// The new side.
    public let new: DocumentOperand
    /// JSON output.
    public let json: Bool
    /// Whether to measure the impact.
    public let impact: Bool
    /// Installs in the sample.
    public let sampleSize: Int
    /// A contexts file to sample from.
    public let contextsFile: String?
    /// The generator's seed.
    public let seed: UInt64

    /// From the parsed command line; `--sample`, `--contexts` and `--seed` need `--impact`.
    public init(parsed: ParsedArguments) throws(UsageError) {
        let first = try parsed.required(Self.first)
        if let second = try parsed.value(Self.second) {
            if parsed.origin(of: Self.environmentOption) != nil {
                throw UsageError("option '--env' is only for the one-argument form (a file against the server)")
            }
            old = first
            new = second
        } else {
            guard case .file(let path) = first else {
                throw UsageError("one argument must be a file (compared with what the server serves now); '\(first)' names the server")
            }
            let environment = try parsed.value(Self.environmentOption) ?? Self.environment(ofFile: path)
            guard DocumentOperand.isEnvironmentName(environment[...]) else {
                throw UsageError("cannot tell the environment from '\(path)': pass --env NAME")
            }
            old = .environment(environment)
            new = first
        }
        json = parsed.isSet(Self.jsonSwitch)
        impact = parsed.isSet(Self.impactSwitch)
        contextsFile = try parsed.value(Self.contextsOption)
        let impactOptions: [any OptionDeclaration] = [Self.sampleOption, Self.contextsOption, Self.seedOption]
        if !impact, let needless = impactOptions.first(where: { parsed.origin(of: $0) != nil }) {
            throw UsageError("option '--\(needless.spec.name)' needs --impact")
        }
        sampleSize = try parsed.value(Self.sampleOption) ?? 100_000
        seed = try parsed.value(Self.seedOption) ?? ImpactSample.defaultSeed
    }

    /// `flags/production.json` names `production`.
    static func environment(ofFile path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.hasSuffix(".json") ? String(name.dropLast(5)) : name
    }

    /// Loads both sides, prints the diff (and the impact), returns 0, 1 or 2.
    public func run(_ context: RunContext) -> Int32 {
        let before: FlagDocument
        let after: FlagDocument
        let labels: (old: String, new: String)
        let report: ImpactReport?
        do {
            let loadedOld = try old.load(context.globals)
            let loadedNew = try new.load(context.globals)
            (before, after) = (loadedOld.document, loadedNew.document)
            labels = (loadedOld.label, loadedNew.label)
            report = impact ? try measure(from: before, to: after) : nil
        } catch {
            context.error(error.description)
            return ExitStatus.trouble
        }
        let diff = DocumentDiff(from: before, to: after)
        if json {
            guard case .object(var object) = diff.jsonValue else { return ExitStatus.trouble }
            object["from"] = .string(old.description)
            object["to"] = .string(new.description)
            if let report {
                guard case .object(var impactObject) = report.jsonValue else { return ExitStatus.trouble }
                impactObject["source"] = contextsFile.map(JSONValue.string) ?? "generated"
                impactObject["seed"] = .integer(Int64(bitPattern: seed))
                object["impact"] = .object(impactObject)
            }
            context.stdout.write(JSONValue.object(object).prettyString)
        } else {
            printText(diff, report, labels, context)
        }
        return diff.isEmpty ? ExitStatus.success : ExitStatus.failure
    }

    private func measure(from before: FlagDocument, to after: FlagDocument) throws(CommandFailure) -> ImpactReport {
        let sample: [EvaluationContext]
        if let contextsFile {
            let bytes: [UInt8]
            do {
                bytes = try FileReader.read(contextsFile)
            } catch {
                throw .unreadable(error)
            }
            sample = try ImpactSample.fromContextLines(bytes, source: contextsFile, count: sampleSize, seed: seed)
        } else {
            sample = ImpactSample.generate(count: sampleSize, seed: seed, pools: ImpactSample.pools(for: [before, after]))
        }
        return ImpactAnalysis.measure(from: before, to: after, sample: sample)
    }

    private func printText(_ diff: DocumentDiff, _ report: ImpactReport?, _ labels: (old: String, new: String), _ context: RunContext) {
        let color = context.usesColor
        func paint(_ text: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
        context.print(paint("--- \(labels.old)", "1"))
        context.print(paint("+++ \(labels.new)", "1"))
        if diff.isEmpty { context.print("no differences") }
        Self.printLines(diff, context)
        guard let report else { return }
        let source = contextsFile.map { "contexts from \($0)" } ?? "generated, seed \(seed)"
        context.print("")
        context.print(paint("impact on \(ImpactReport.grouped(report.sampleSize)) sampled installs (\(source)):", "1"))
        for line in report.lines { context.print("  " + line) }
    }

    /// The diff's lines, colored on a terminal (`publish` prints them too).
    static func printLines(_ diff: DocumentDiff, _ context: RunContext) {
        let color = context.usesColor
        func paint(_ text: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
        for line in diff.lines {
            switch line.kind {
            case .added: context.print(paint(line.text, "32"))
            case .removed: context.print(paint(line.text, "31"))
            case .changed: context.print(paint(line.text, "33"))
            case .detail:
                // Rules added to or removed from a changed flag read like lines of their own.
                let trimmed = line.text.drop { $0 == " " }
                context.print(trimmed.hasPrefix("+ ") ? paint(line.text, "32") : trimmed.hasPrefix("- ") ? paint(line.text, "31") : line.text)
            }
        }
    }
}
