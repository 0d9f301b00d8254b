/// One environment's complete, validated set of flags and cohorts.
///
/// Instances exist only after validation (`FlagDocument.decode(...)` or `init(validating:)`), so
/// evaluation can rely on every reference resolving and no cycle existing.
public struct FlagDocument: Sendable, Equatable {
    /// Flags by key.
    public let flags: [String: Flag]
    /// Cohorts by name.
    public let cohorts: [String: Condition]

    /// Memberwise, unchecked: only for code in this module that has validated the parts.
    init(uncheckedFlags flags: [String: Flag], cohorts: [String: Condition]) {
        self.flags = flags
        self.cohorts = cohorts
    }

    /// This document with flag `key` set to `value` for everyone: its default becomes `value` and its
    /// rules are dropped; type, description, prerequisites and salt stay. Nil when there is no flag `key`
    /// or `value` is not of its type.
    ///
    /// The result needs no second validation of the whole document (a flip is the most frequent write):
    /// the rest was valid and is unchanged, a prerequisite naming this flag compares with a value of its
    /// unchanged type, and no check depends on a flag's rules.
    public func settingDefault(_ value: JSONValue, for key: String) -> FlagDocument? {
        guard let existing = flags[key], existing.type.accepts(value) else { return nil }
        var edited = flags
        edited[key] = Flag(type: existing.type, description: existing.description, defaultValue: value, rules: [],
                           requires: existing.requires, salt: existing.salt)
        return FlagDocument(uncheckedFlags: edited, cohorts: cohorts)
    }

    /// Flag keys in UTF-8 order, the order used by every listing and encoding.
    public var sortedFlagKeys: [String] { flags.keys.sorted(by: JSONValue.utf8Order) }

    /// Cohort names in UTF-8 order.
    public var sortedCohortNames: [String] { cohorts.keys.sorted(by: JSONValue.utf8Order) }
}

/// The type of a flag's values. Every value in a flag (default and rules) is checked against it.
public enum FlagType: String, Sendable, CaseIterable, Codable {
    /// `true` / `false`.
    case boolean
    /// Any string.
    case string
    /// A whole number that fits 64 bits.
    case integer
    /// Any finite number.
    case number
    /// Any JSON value (objects for structured remote config).
    case json

    /// Whether `value` is of this type.
    public func accepts(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.boolean, .bool), (.string, .string), (.integer, .integer), (.number, .integer), (.number, .number), (.json, _):
            true
        default:
            false
        }
    }
}

/// One flag: a type, a default, and ordered targeting rules.
public struct Flag: Sendable, Equatable {
    /// The value type.
    public var type: FlagType
    /// What the flag does, for the people who flip it.
    public var description: String?
    /// The value when no rule gives one (and when a prerequisite is not met).
    public var defaultValue: JSONValue
    /// Tried in order; the first whose cohort matches and whose rollout includes the install wins.
    public var rules: [Rule]
    /// Prerequisites: flag key to the value it must evaluate to for this flag's rules to apply.
    public var requires: [String: JSONValue]
    /// Overrides the key as the bucketing salt, so a flag can be renamed without reshuffling installs,
    /// or two flags can share buckets.
    public var salt: String?

    /// A flag with the given parts.
    public init(type: FlagType, description: String? = nil, defaultValue: JSONValue, rules: [Rule] = [],
                requires: [String: JSONValue] = [:], salt: String? = nil) {
        self.type = type
        self.description = description
        self.defaultValue = defaultValue
        self.rules = rules
        self.requires = requires
        self.salt = salt
    }
}

/// A targeting rule: a value for the installs in a cohort (all installs when `cohort` is nil),
/// optionally only for a percentage of them.
public struct Rule: Sendable, Equatable {
    /// The cohort whose members this rule is for; nil means every install.
    public var cohort: String?
    /// The value given when the rule applies.
    public var value: JSONValue
    /// The share of the cohort that gets the value; nil means all of it.
    public var rollout: Rollout?

    /// A rule with the given parts.
    public init(cohort: String? = nil, value: JSONValue, rollout: Rollout? = nil) {
        self.cohort = cohort
        self.value = value
        self.rollout = rollout
    }
}

/// A rollout percentage with at most three decimals, kept as thousandths of a percent so that
/// comparisons with buckets are exact integer comparisons.
public struct Rollout: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The percentage times 1000, in `0...100_000`.
    public let thousandths: Int

    /// From thousandths of a percent; nil outside `0...100_000`.
    public init?(thousandths: Int) {
        guard (0...100_000).contains(thousandths) else { return nil }
        self.thousandths = thousandths
    }

    /// From a percentage; nil outside 0...100 or with more than three decimals.
    ///
    /// The decimals are counted in the number's shortest round-trip form (what was written, for any
    /// literal of up to 17 significant digits), not with a tolerance: `99.9999999999` is refused rather
    /// than silently rounded to 100, and so is `1e-320`.
    public init?(percent: Double) {
        guard percent.isFinite, percent >= 0, percent <= 100 else { return nil }
        let text = "\(percent)"
        if text.utf8.contains(UInt8(ascii: "e")) {
            guard percent == 0 else { return nil }
        } else if let point = text.firstIndex(of: ".") {
            let decimals = text[text.index(after: point)...]
            guard decimals.count <= 3 || decimals.allSatisfy({ $0 == "0" }) else { return nil }
        }
        self.thousandths = Int((percent * 1000).rounded())
    }

    /// The percentage as a number.
    public var percent: Double { Double(thousandths) / 1000 }

    /// The percentage as JSON: an integer when whole.
    public var jsonValue: JSONValue {
        thousandths % 1000 == 0 ? .integer(Int64(thousandths / 1000)) : .number(percent)
    }

    /// Whether an install in `bucket` is inside the rollout.
    public func includes(bucket: Int) -> Bool { bucket < thousandths }

    /// `12.5%`.
    public var description: String { "\(jsonValue)%" }

    /// Orders by share.
    public static func < (lhs: Rollout, rhs: Rollout) -> Bool { lhs.thousandths < rhs.thousandths }
}
