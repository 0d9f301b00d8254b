/// Splits one command's tokens into options and positional arguments.
///
/// Conventions as in swift-argument-parser and POSIX utilities: `--name value` and `--name=value`,
/// flags without a value, options anywhere among the arguments, `--` ending the options, and a lone
/// `-` being an argument (standard input).
public enum ArgumentParser {
    /// Parses `tokens` (everything after the subcommand's name) against `options` and `arguments`.
    public static func parse(_ tokens: [String], options: [OptionSpec], arguments: [ArgumentSpec]) throws(UsageError) -> ParsedArguments {
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
            var body = token.dropFirst(2)
            if !token.hasPrefix("--") {
                // `-m MESSAGE`: a declared one-letter alias stands for its long option.
                guard token.count == 2, let letter = token.last, let spec = options.first(where: { $0.short == letter }) else {
                    throw UsageError("unknown option '\(token)'")
                }
                body = Substring(spec.name)
            }
            let name: String
            var inlineValue: String?
            if let equals = body.firstIndex(of: "=") {
                name = String(body[..<equals])
                inlineValue = String(body[body.index(after: equals)...])
            } else {
                name = String(body)
            }
            guard let spec = options.first(where: { $0.name == name }) else { throw UsageError("unknown option '--\(name)'") }
            guard spec.valueName != nil else {
                if inlineValue != nil { throw UsageError("option '--\(name)' takes no value") }
                if parsed.flags.contains(name) { throw UsageError("option '--\(name)' given more than once") }
                parsed.flags.insert(name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < tokens.count else { throw UsageError("option '--\(name)' needs a value <\(spec.valueName ?? "value")>") }
                value = tokens[index]
                index += 1
            }
            if !spec.repeatable, parsed.optionValues[name] != nil { throw UsageError("option '--\(name)' given more than once") }
            parsed.optionValues[name, default: []].append(value)
        }
        parsed.positionals = try assign(positionals, to: arguments)
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
    static func asksForHelp(_ tokens: [String]) -> Bool {
        for token in tokens {
            if token == "--" { return false }
            if token == "--help" || token == "-h" { return true }
        }
        return false
    }
}
