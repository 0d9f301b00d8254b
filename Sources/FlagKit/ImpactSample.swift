/// The installs `flagctl diff --impact` and the server's preview evaluate, generated deterministically
/// across the cohorts' conditions (flagctl can also take them from a file of contexts: `fromContextLines`).
public enum ImpactSample {
    /// The seed used when none is given.
    public static let defaultSeed: UInt64 = 20_260_101

    /// One attribute and the values a generated install draws from (nil: the attribute is absent).
    public struct AttributePool: Sendable, Equatable {
        /// The attribute's name.
        public let name: String
        /// The candidates, each equally likely; for an instant attribute the comparison bounds and their
        /// neighbours (1 ms either side), drawn only for ``boundShare`` percent of installs.
        public let values: [JSONValue?]
        /// For an attribute compared with `before`/`after` (and always for `firstInstallDate`): the instants,
        /// in milliseconds, that install dates spread over; nil for other attributes.
        public let instantWindow: ClosedRange<Int64>?

        /// A pool; `instantWindow` only for instant attributes.
        public init(name: String, values: [JSONValue?], instantWindow: ClosedRange<Int64>? = nil) {
            self.name = name
            self.values = values
            self.instantWindow = instantWindow
        }
    }

    /// Percent of generated installs whose install date is unknown (the app could not read or verify its
    /// `AppTransaction`: offline at first launch, a failing or unverifiable StoreKit answer). A planning figure,
    /// large enough that every impact report shows what happens to them.
    public static let unknownInstantShare = 5
    /// Percent of generated installs whose date is one of the bounds or 1 ms beside one, so equality is exercised.
    public static let boundShare = 5
    /// Install dates spread uniformly (whole seconds) from this long before the earliest bound...
    public static let instantWindowBefore: Int64 = 730 * CalendarDate.millisecondsPerDay
    /// ...to this long after the latest: two years of installs before a switch, one year after it.
    public static let instantWindowAfter: Int64 = 365 * CalendarDate.millisecondsPerDay
    /// The window when an instant attribute has no bound (only `exists`): 2024-01-01 to 2027-01-01, UTC.
    static let instantWindowWithoutBounds: ClosedRange<Int64> = 1_704_067_200_000...1_798_761_600_000

    /// The pools for every attribute the documents' cohorts mention (except `installId`, which
    /// every install gets at random): the operands themselves, values just either side of each
    /// comparison bound, strings that satisfy each prefix/suffix/substring test, plus "absent" and a
    /// value that matches none of them. Sorted by name and value, so a seed always means the same sample.
    public static func pools(for documents: [FlagDocument]) -> [AttributePool] {
        var candidates: [String: Set<JSONValue>] = [:]
        // Instant attributes: their bounds in milliseconds (an entry, even empty, marks the attribute as one).
        var bounds: [String: Set<Int64>] = [:]
        func visit(_ condition: Condition) {
            for member in condition.members {
                switch member {
                case .attribute(let name, let predicates):
                    for predicate in predicates { candidates[name, default: []].formUnion(values(for: predicate, attribute: name)) }
                    if BuiltInAttribute(rawValue: name)?.isInstant == true { bounds[name, default: []].formUnion([]) }
                    for case let instant? in predicates.map(\.instant) { bounds[name, default: []].insert(instant) }
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
            if let instants = bounds[name] {
                for instant in instants {
                    values.formUnion([instant - 1, instant, instant + 1].map { .string(RFC3339.string(milliseconds: $0)) })
                }
                let sorted = values.sorted { JSONValue.utf8Order($0.canonicalString, $1.canonicalString) }
                let window = instants.min().map { lowest in
                    (lowest - instantWindowBefore)...((instants.max() ?? lowest) + instantWindowAfter)
                } ?? instantWindowWithoutBounds
                // No bound to draw: the bound share is unknown too (only `exists` was tested, so only presence matters).
                let values: [JSONValue?] = sorted.isEmpty ? [nil] : sorted.map(Optional.some)
                return AttributePool(name: name, values: values, instantWindow: window)
            }
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
        case .exists, .before, .after: return []
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
    /// from its pool, all from one SplitMix64 stream in a fixed order. An instant attribute is unknown for
    /// ``unknownInstantShare`` percent, a bound or its neighbour for ``boundShare`` percent, and otherwise a
    /// whole second drawn uniformly from its window.
    public static func generate(count: Int, seed: UInt64, pools: [AttributePool]) -> [EvaluationContext] {
        var generator = SplitMix64(seed: seed)
        var contexts: [EvaluationContext] = []
        contexts.reserveCapacity(count)
        for _ in 0..<count {
            var attributes: [String: JSONValue] = ["installId": .string(generator.nextInstallId())]
            for pool in pools {
                if let window = pool.instantWindow {
                    if let value = instant(from: pool, window: window, generator: &generator) { attributes[pool.name] = value }
                } else if let value = pool.values[generator.next(below: pool.values.count)] {
                    attributes[pool.name] = value
                }
            }
            contexts.append(EvaluationContext(attributes: attributes))
        }
        return contexts
    }

    /// One install's date for an instant pool (nil: unknown).
    private static func instant(from pool: AttributePool, window: ClosedRange<Int64>, generator: inout SplitMix64) -> JSONValue? {
        let roll = generator.next(below: 100)
        if roll < unknownInstantShare { return nil }
        if roll < unknownInstantShare + boundShare { return pool.values[generator.next(below: pool.values.count)] }
        let seconds = Int((window.upperBound - window.lowerBound) / 1000) + 1
        return .string(RFC3339.string(milliseconds: window.lowerBound + Int64(generator.next(below: seconds)) * 1000))
    }
}
