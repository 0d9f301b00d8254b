/// How one operator compares an attribute's value with its operand.
///
/// An absent attribute satisfies only `exists: false`: a cohort never matches on what is not known
/// (so `country ne "DE"` does not match an install whose country is unknown). Values of the wrong
/// type do not match either. String operators compare UTF-8 bytes, with no case folding and no
/// Unicode normalization, so every platform's implementation agrees.
extension Predicate {
    /// Whether the predicate holds for `value`; `version` is `value` parsed as a semantic version when
    /// the attribute is a version attribute (nil when absent or unparsable), `instant` is `value` as an RFC 3339
    /// instant in milliseconds when a predicate compares instants (nil when absent or unparsable).
    func matches(_ value: JSONValue?, version: SemanticVersion?, instant valueInstant: Int64? = nil) -> Bool {
        if op == .exists { return (value != nil) == (operand.boolValue ?? true) }
        guard let value else { return false }
        if !versions.isEmpty { return matchesVersion(version) }
        if op.isInstant {
            // An unknown or unparsable instant is never before or after anything: a cohort of early (or late)
            // installs never takes in an install whose date is not known.
            guard let valueInstant, let instant else { return false }
            return op == .before ? valueInstant < instant : valueInstant > instant
        }
        switch op {
        case .eq: return Self.equal(value, operand)
        case .ne: return !Self.equal(value, operand)
        case .in: return operand.arrayValue?.contains { Self.equal(value, $0) } ?? false
        case .notIn: return !(operand.arrayValue?.contains { Self.equal(value, $0) } ?? true)
        case .startsWith, .endsWith, .contains:
            guard let text = value.stringValue, let needle = operand.stringValue else { return false }
            let haystack = Array(text.utf8), pattern = Array(needle.utf8)
            switch op {
            case .startsWith: return haystack.starts(with: pattern)
            case .endsWith: return haystack.reversed().starts(with: pattern.reversed())
            default: return Self.bytes(haystack, contain: pattern)
            }
        case .gt, .gte, .lt, .lte:
            guard let order = Self.order(value, operand) else { return false }
            return Self.satisfies(op, order)
        case .exists, .before, .after: return false
        }
    }

    private func matchesVersion(_ version: SemanticVersion?) -> Bool {
        guard let version, let first = versions.first else { return false }
        switch op {
        case .eq: return version == first
        case .ne: return version != first
        case .in: return versions.contains(version)
        case .notIn: return !versions.contains(version)
        case .gt, .gte, .lt, .lte:
            let order = version < first ? -1 : (version == first ? 0 : 1)
            return Self.satisfies(op, order)
        case .startsWith, .endsWith, .contains, .exists, .before, .after: return false
        }
    }

    private static func satisfies(_ op: Operator, _ order: Int) -> Bool {
        switch op {
        case .gt: order > 0
        case .gte: order >= 0
        case .lt: order < 0
        case .lte: order <= 0
        default: false
        }
    }

    /// Numbers compare numerically (1 equals 1.0); other values only with their own type.
    static func equal(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        if let left = lhs.doubleValue, let right = rhs.doubleValue {
            if case .integer(let a) = lhs, case .integer(let b) = rhs { return a == b }
            return left == right
        }
        return lhs == rhs
    }

    /// -1, 0 or 1 for two numbers or two strings (UTF-8 order); nil for anything else.
    static func order(_ lhs: JSONValue, _ rhs: JSONValue) -> Int? {
        if case .integer(let a) = lhs, case .integer(let b) = rhs { return a < b ? -1 : (a == b ? 0 : 1) }
        if let a = lhs.doubleValue, let b = rhs.doubleValue { return a < b ? -1 : (a == b ? 0 : 1) }
        if let a = lhs.stringValue, let b = rhs.stringValue {
            if a == b { return 0 }
            return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
        }
        return nil
    }

    private static func bytes(_ haystack: [UInt8], contain needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }
}
