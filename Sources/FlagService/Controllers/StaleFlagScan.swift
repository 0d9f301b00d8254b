import FlagKit

/// Which flags of an environment are stale (`docs/governance.md`, "Flag lifecycle"): past their policy's
/// `removeAfter` date, or constant — in the version current `days` days ago and in every version since, the
/// flag existed and its default and every rule's value were one and the same value.
///
/// Fed the history newest first (`add`), one version at a time, until `needsMore` is false: the scan has
/// reached the version current at the cutoff and knows since when each constant flag has been constant.
public struct StaleFlagScan: Sendable {
    /// One flag's current run of a single value, going back in history.
    struct Run: Sendable, Equatable {
        var value: JSONValue
        /// The publication time of the oldest version seen in the run.
        var since: Int64
        /// Still unbroken at the oldest version seen.
        var open: Bool
    }

    /// Versions published at or before this (milliseconds since 1970 UTC) are `days` old.
    public let cutoff: Int64
    private var runs: [String: Run] = [:]
    private var started = false
    /// The version current at the cutoff has been seen (history reaches back `days` days).
    public private(set) var reachedCutoff = false

    /// A scan at `now` for flags constant for `days` days.
    public init(now: Int64, days: Int) {
        cutoff = now - Int64(days) * 86_400_000
    }

    /// Whether older versions could still change the answer.
    public var needsMore: Bool { !reachedCutoff || runs.values.contains(where: \.open) }

    /// The one value a flag gives everyone (its default and every rule's value are equal), or nil.
    public static func singleValue(of flag: Flag) -> JSONValue? {
        // `.none`, not `nil`: JSONValue is ExpressibleByNilLiteral, so a bare `nil` here would be `.null`.
        flag.rules.allSatisfy { $0.value == flag.defaultValue } ? .some(flag.defaultValue) : .none
    }

    /// The next older version: published at `publishedAt`, with `document`.
    public mutating func add(publishedAt: Int64, document: FlagDocument) {
        if !started {
            started = true
            for (key, flag) in document.flags {
                if let value = Self.singleValue(of: flag) { runs[key] = Run(value: value, since: publishedAt, open: true) }
            }
        } else {
            for (key, run) in runs where run.open {
                if let flag = document.flags[key], Self.singleValue(of: flag) == run.value {
                    runs[key]?.since = publishedAt
                } else if reachedCutoff {
                    runs[key]?.open = false  // constant since the version after this one
                } else {
                    runs[key] = nil  // not constant for the whole period
                }
            }
        }
        if publishedAt <= cutoff { reachedCutoff = true }
    }

    /// The stale flags of `current` (the newest version, the first one added) under `policy` on day `today`,
    /// by key: each with its owner, `removeAfter`, the reasons, and for a constant flag its value and since when.
    public func staleFlags(current: FlagDocument, policy: EnvironmentPolicy, today: CalendarDate) -> [StaleFlag] {
        current.sortedFlagKeys.compactMap { key in
            let flagPolicy = policy.flags[key]
            var reasons: [StaleFlag.Reason] = []
            if let removeAfter = flagPolicy?.removeAfter, removeAfter < today { reasons.append(.pastRemovalDate) }
            let run = reachedCutoff ? runs[key] : nil
            if run != nil { reasons.append(.constant) }
            guard !reasons.isEmpty else { return nil }
            return StaleFlag(key: key, owner: flagPolicy?.owner, removeAfter: flagPolicy?.removeAfter, reasons: reasons,
                             value: run?.value, constantSince: run?.since)
        }
    }
}

/// One flag `GET .../stale` lists.
public struct StaleFlag: Sendable, Equatable {
    /// Why it is listed.
    public enum Reason: String, Sendable, Equatable {
        /// Its policy's `removeAfter` day is over.
        case pastRemovalDate = "past_removal_date"
        /// It has given everyone one value for the whole period.
        case constant
    }

    /// The flag's key.
    public let key: String
    /// Its owner (policy).
    public let owner: String?
    /// When it should be gone (policy).
    public let removeAfter: CalendarDate?
    /// Why it is listed.
    public let reasons: [Reason]
    /// For `constant`: the one value.
    public let value: JSONValue?
    /// For `constant`: the publication time of the oldest version from which on it has had that one value.
    public let constantSince: Int64?

    /// `{"key", "owner", "removeAfter", "reasons", "value", "constantSince"}`, absent parts as null.
    public var jsonValue: JSONValue {
        .object([
            "key": .string(key), "owner": owner.map(JSONValue.string) ?? .null,
            "removeAfter": removeAfter.map { .string($0.description) } ?? .null,
            "reasons": .array(reasons.map { .string($0.rawValue) }), "value": value ?? .null,
            "constantSince": constantSince.map { .string(RFC3339.string(milliseconds: $0)) } ?? .null,
        ])
    }
}
