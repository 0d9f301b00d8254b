/// The installs `flagctl diff --impact` and the server's preview evaluate, generated deterministically
/// across the cohorts' conditions (flagctl can also take them from a file of contexts: `fromContextLines`).
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
}
