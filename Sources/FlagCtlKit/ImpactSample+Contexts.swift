import FlagKit

/// Samples read from a file of contexts: flagctl's `diff --impact --contexts FILE` (the generated samples
/// live in FlagKit, shared with the server's preview; reading a file and its errors are the CLI's).
extension ImpactSample {
    /// `count` installs from the contexts of a file (JSON lines, one object each): install `i` takes
    /// the attributes of line `i % lines`; the first pass keeps the lines' own install ids where they
    /// have one, later passes (and lines without one) get random ids from the seed, so no install repeats.
    public static func fromContextLines(_ bytes: [UInt8], source: String, count: Int, seed: UInt64) throws(CommandFailure) -> [EvaluationContext] {
        var objects: [[String: JSONValue]] = []
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            guard line.contains(where: { ![0x20, 0x09, 0x0D].contains($0) }) else { continue }
            let parsed: JSONParser.Parsed
            do {
                parsed = try JSONParser.parse(line)
            } catch {
                throw .badContext(source: source, line: index + 1, message: "not JSON: \(error)")
            }
            guard case .object(let object) = parsed.value else {
                throw .badContext(source: source, line: index + 1, message: "must be a JSON object of attributes (got \(parsed.value.typeName))")
            }
            for (name, value) in object {
                // A bad install date is refused, not quietly sampled as unknown (other built-ins as before).
                guard let attribute = BuiltInAttribute(named: name), attribute.isInstant, let problem = attribute.problem(with: value) else { continue }
                throw .badContext(source: source, line: index + 1, message: "\(name) \(problem)")
            }
            objects.append(object)
        }
        guard !objects.isEmpty else { throw .badContext(source: source, line: 1, message: "no contexts in the file") }
        var generator = SplitMix64(seed: seed)
        var contexts: [EvaluationContext] = []
        contexts.reserveCapacity(count)
        for index in 0..<count {
            var attributes = objects[index % objects.count]
            let hasOwnId = attributes["installId"] != nil || attributes["targetingKey"] != nil
            if index >= objects.count || !hasOwnId {
                attributes.removeValue(forKey: "targetingKey")
                attributes["installId"] = .string(generator.nextInstallId())
            }
            contexts.append(EvaluationContext(attributes: attributes))
        }
        return contexts
    }
}
