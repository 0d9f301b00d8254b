/// The check that a command's help says what its parser takes: the usage line is read back as a person would read
/// it, an example command line is built from it and parsed, and a word the abstract names in capitals (`NAME`) must
/// be a positional argument of the usage line, not only an option's value (`--name <name>`).
extension CommandLineTool {
    /// Every disagreement between a command's help and its parser, one sentence each (none: empty). `examples`
    /// gives a value for a placeholder (`"env": "production"`); without one, a placeholder of alternatives
    /// (`<reader|writer|admin>`) takes its first and any other `x`. Each command line holds the usage line's required
    /// items and its optional positional arguments (`[<flag>] [<value>]` may only make sense together), then each
    /// optional option is tried once on top of them. A refusal containing one of `dependencies` is not a problem: it
    /// states a dependency between items (`--sample` needs `--impact`, NAME or `--name`) that a flat usage line cannot
    /// show and the command's help says in words.
    package func helpProblems(examples: [String: String], dependencies: [String] = []) -> [String] {
        var problems: [String] = []
        for (path, type) in allCommands {
            let configuration = type.configuration
            let prefix = [name] + path
            let line = usage(of: configuration, path: prefix)
            let items = Self.usageItems(line, after: prefix.count)
            let required = items.filter { !$0.hasPrefix("[") || $0.hasPrefix("[<") && $0 != "[<options>]" }
                .flatMap { Self.example(of: $0.hasPrefix("[") ? String($0.dropFirst().dropLast()) : $0, examples) }
            let optional = items.filter { $0.hasPrefix("[--") || $0.hasPrefix("[-") }
            for extra in [nil] + optional.map(Optional.some) {
                let arguments = path + required + (extra.map { Self.example(of: String($0.dropFirst().dropLast()), examples) } ?? [])
                if case .usageError(let error) = parse(arguments), !dependencies.contains(where: error.message.contains) {
                    problems.append("'\(line)': '\(([name] + arguments).joined(separator: " "))' is refused: \(error.message)")
                }
            }
            let positional = Set(configuration.arguments.map(\.name))
            let optionValues = Set(configuration.options.compactMap(\.valueName))
            for word in Self.capitalWords(configuration.abstract) where optionValues.contains(word.lowercased())
                && !positional.contains(word.lowercased()) {
                problems.append("'\(line)': the abstract names \(word), which the usage line takes only as an option's value")
            }
        }
        return problems
    }

    /// The items of a usage line after its first `skipping` words: `--to <file>`, `[--json]`, `<a>`, `[<b>]`.
    static func usageItems(_ line: String, after skipping: Int) -> [String] {
        var items: [String] = []
        var current = ""
        var depth = 0
        for character in line {
            if character == "[" { depth += 1 }
            if character == "]" { depth -= 1 }
            if character == " " && depth == 0 {
                if !current.isEmpty { items.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { items.append(current) }
        // An option and its value are one item: `--to` `<file>` -> `--to <file>`.
        var joined: [String] = []
        for item in items.dropFirst(skipping) {
            if item.hasPrefix("<"), let last = joined.last, last.hasPrefix("--"), !last.contains(" ") {
                joined[joined.count - 1] = last + " " + item
            } else {
                joined.append(item)
            }
        }
        return joined
    }

    /// The words of one usage item with examples for its placeholders: `--role <reader|writer>` -> `--role reader`,
    /// `-m, --message <text>` -> `--message x`, `--env <name> ...` -> `--env x`.
    static func example(of item: String, _ examples: [String: String]) -> [String] {
        item.split(separator: " ").filter { $0 != "..." && !$0.hasSuffix(",") }.map { word in
            guard word.hasPrefix("<") else { return String(word) }
            let name = String(word.drop { $0 == "<" }.prefix { $0 != ">" })
            return examples[name] ?? (name.contains("|") ? String(name.prefix { $0 != "|" }) : "x")
        }
    }

    /// Words of two or more capitals (`NAME`, `ENV`) in `text`.
    static func capitalWords(_ text: String) -> [String] {
        text.split(whereSeparator: { !$0.isLetter && $0 != "_" }).map(String.init)
            .filter { $0.count >= 2 && $0.allSatisfy { $0.isUppercase || $0 == "_" } }
    }
}
