import FlagKit

/// SplitMix64 (Steele, Lea, Flood 2014; the seeding generator of Java's SplittableRandom): tiny,
/// fast, and the same numbers on every platform for a seed, which makes samples reproducible.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator for a seed.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` by Lemire's multiply-high, without modulo bias worth mentioning.
    public mutating func next(below bound: Int) -> Int {
        Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// A random version-4 UUID string in upper case, like iOS's `identifierForVendor`.
    public mutating func nextInstallId() -> String {
        let high = (next() & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let low = (next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        let digits = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(36)
        for (index, word) in [high, low].enumerated() {
            for nibble in 0..<16 {
                let position = index * 16 + nibble
                if [8, 12, 16, 20].contains(position) { bytes.append(UInt8(ascii: "-")) }
                bytes.append(digits[Int((word >> UInt64(60 - 4 * nibble)) & 0xF)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The installs `diff --impact` evaluates: generated deterministically across the cohorts'
/// conditions, or taken from a file of real-looking contexts.
public enum ImpactSample {
    /// The seed used when none is given.
    public static let defaultSeed: UInt64 = 20_260_101

    /// One attribute and the values a generated install draws from (nil: the attribute is absent).
    public struct AttributePool: Sendable, Equatable {
        /// The attribute's name.
        public let name: String
        /// The candidates, each equally likely.
        public let values: [JSONValue?]
    }

    /// The pools for every attribute the documents' cohorts mention (except `installId`, which
    /// every install gets at random): the operands themselves, values just either side of each
    /// comparison bound, strings that satisfy each prefix/suffix/substring test, plus "absent" and a
    /// value that matches none of them. Sorted by name and value, so a seed always means the same sample.
    public static func pools(for documents: [FlagDocument]) -> [AttributePool] {
        var candidates: [String: Set<JSONValue>] = [:]
        func visit(_ condition: Condition) {
            for member in condition.members {
                switch member {
                case .attribute(let name, let predicates):
                    for predicate in predicates { candidates[name, default: []].formUnion(values(for: predicate, attribute: name)) }
                case .all(let conditions), .any(let conditions): conditions.forEach(visit)
                case .not(let inner): visit(inner)
                case .cohort: break
                }
            }
        }
        for document in documents { document.cohorts.values.forEach(visit) }
        candidates["installId"] = nil
        candidates["targetingKey"] = nil
        return candidates.keys.sorted(by: JSONValue.utf8Order).map { name in
            var values = candidates[name, default: []]
            values.insert(VersionAttributes.names.contains(name) ? .string("0.0.1") : .string("zz-matches-none"))
            let sorted = values.sorted { JSONValue.utf8Order($0.canonicalString, $1.canonicalString) }
            return AttributePool(name: name, values: [nil] + sorted.map(Optional.some))
        }
    }

    /// Values that exercise one predicate: ones that satisfy it and ones just beside it.
    static func values(for predicate: Predicate, attribute: String) -> [JSONValue] {
        let operand = predicate.operand
        switch predicate.op {
        case .eq, .ne: return [operand]
        case .in, .notIn: return operand.arrayValue ?? []
        case .startsWith: return operand.stringValue.map { [.string($0), .string($0 + "-ZZ")] } ?? []
        case .endsWith: return operand.stringValue.map { [.string("zz-" + $0)] } ?? []
        case .contains: return operand.stringValue.map { [.string("z" + $0 + "z")] } ?? []
        case .exists: return []
        case .gt, .gte, .lt, .lte:
            if VersionAttributes.names.contains(attribute), let text = operand.stringValue, let version = SemanticVersion(text) {
                return neighbours(of: version).map(JSONValue.string)
            }
            switch operand {
            case .integer(let value): return [.integer(value &- 1), operand, .integer(value &+ 1)]
            case .number(let value): return [.number(value - 0.5), operand, .number(value + 0.5)]
            case .string(let value): return ["", operand, .string(value + "~")]
            default: return [operand]
            }
        }
    }

    /// A version itself, the next patch, and the release just below it.
    static func neighbours(of version: SemanticVersion) -> [String] {
        let (major, minor, patch) = (version.major, version.minor, version.patch)
        var result = ["\(major).\(minor).\(patch)", "\(major).\(minor).\(patch + 1)"]
        if patch > 0 {
            result.append("\(major).\(minor).\(patch - 1)")
        } else if minor > 0 {
            result.append("\(major).\(minor - 1).9")
        } else if major > 0 {
            result.append("\(major - 1).9.9")
        }
        return result
    }

    /// `count` generated installs: a random install id each, and each attribute drawn uniformly
    /// from its pool, all from one SplitMix64 stream in a fixed order.
    public static func generate(count: Int, seed: UInt64, pools: [AttributePool]) -> [EvaluationContext] {
        var generator = SplitMix64(seed: seed)
        var contexts: [EvaluationContext] = []
        contexts.reserveCapacity(count)
        for _ in 0..<count {
            var attributes: [String: JSONValue] = ["installId": .string(generator.nextInstallId())]
            for pool in pools {
                if let value = pool.values[generator.next(below: pool.values.count)] { attributes[pool.name] = value }
            }
            contexts.append(EvaluationContext(attributes: attributes))
        }
        return contexts
    }

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
