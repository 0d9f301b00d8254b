/// Splits one command's tokens into options and positional arguments.
///
/// Conventions as in swift-argument-parser and POSIX utilities: `--name value` and `--name=value`, `-m value` for
/// a declared one-letter alias, switches (options without a value), options anywhere among the arguments, `--` ending the
/// options, and a lone `-` being an argument (standard input). An option not on the command line takes its
/// environment variable's value, when it declares one.
public enum ArgumentParser {
    /// Parses `tokens` (everything after the command's name) against the declarations.
    public static func parse(_ tokens: [String], options: [any OptionDeclaration], arguments: [any ArgumentDeclaration],
                             environment: [String: String] = [:]) throws(UsageError) -> ParsedArguments {
        try parse(tokens, options: options.map(\.spec), arguments: arguments.map(\.spec), environment: environment)
    }

    /// Parses `tokens` against the descriptions (what the tool calls with a command's configuration).
    static func parse(_ tokens: [String], options: [OptionSpec], arguments: [ArgumentSpec],
                      environment: [String: String]) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var positionals: [String] = []
        var index = 0
        var optionsEnded = false
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            if optionsEnded || token == "-" || !token.hasPrefix("-") {
                positionals.append(token)
                continue
            }
            if token == "--" {
                optionsEnded = true
                continue
            }
            guard let spec = options.first(where: { $0.isSpelled(by: token) }) else {
                let name = token.hasPrefix("--") ? String(token.prefix { $0 != "=" }) : token
                throw UsageError("unknown option '\(name)'")
            }
            if let refusal = spec.refusal { throw UsageError(refusal) }
            let name = spec.name
            let equals = token.hasPrefix("--") ? token.firstIndex(of: "=") : nil
            let inlineValue = equals.map { String(token[token.index(after: $0)...]) }
            guard spec.valueName != nil else {
                if inlineValue != nil { throw UsageError("option '--\(name)' takes no value") }
                if parsed.switches.contains(name) { throw UsageError("option '--\(name)' given more than once") }
                parsed.switches.insert(name)
                parsed.origins[name] = .commandLine
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                // The next word is another of this command's options: the value was forgotten (`--name --role x`).
                guard index < tokens.count, !options.contains(where: { $0.isSpelled(by: tokens[index]) }) else {
                    throw UsageError("option '--\(name)' needs a value <\(spec.valueName ?? "value")>")
                }
                value = tokens[index]
                index += 1
            }
            if !spec.repeatable, parsed.optionValues[name] != nil { throw UsageError("option '--\(name)' given more than once") }
            parsed.optionValues[name, default: []].append(value)
            parsed.origins[name] = .commandLine
        }
        parsed.positionals = try assign(positionals, to: arguments)
        for spec in options where parsed.origins[spec.name] == nil {
            guard let variable = spec.environment, let value = environment[variable] else { continue }
            if spec.valueName == nil {
                guard Switch.environmentTrueValues.contains(value.lowercased()) else { continue }
                parsed.switches.insert(spec.name)
            } else {
                parsed.optionValues[spec.name] = [value]
            }
            parsed.origins[spec.name] = .environment(variable)
        }
        if let missing = options.first(where: { $0.isRequired && parsed.origins[$0.name] == nil }) {
            throw UsageError(ParsedArguments.missing(missing))
        }
        return parsed
    }

    /// Hands positional values to the declared arguments in order; an argument taking several
    /// leaves as many values as the required arguments after it need.
    static func assign(_ values: [String], to arguments: [ArgumentSpec]) throws(UsageError) -> [String: [String]] {
        var result: [String: [String]] = [:]
        var next = 0
        for (position, argument) in arguments.enumerated() {
            let requiredAfter = arguments[(position + 1)...].filter { $0.arity != .optional }.count
            let available = values.count - next
            switch argument.arity {
            case .one:
                guard available > 0 else { throw UsageError("missing argument <\(argument.name)>") }
                result[argument.name] = [values[next]]
                next += 1
            case .optional:
                if available > requiredAfter {
                    result[argument.name] = [values[next]]
                    next += 1
                }
            case .oneOrMore:
                let count = available - requiredAfter
                guard count > 0 else { throw UsageError("missing argument <\(argument.name)>") }
                result[argument.name] = Array(values[next..<(next + count)])
                next += count
            }
        }
        if next < values.count { throw UsageError("unexpected argument '\(values[next])'") }
        return result
    }

    /// Whether the tokens ask for help (`--help` or `-h` before any `--`).
    public static func asksForHelp(_ tokens: some Sequence<String>) -> Bool {
        for token in tokens {
            if token == "--" { return false }
            if token == "--help" || token == "-h" { return true }
        }
        return false
    }
}
