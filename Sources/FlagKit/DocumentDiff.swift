/// What changed between two documents, as a value other code prints (`flagctl diff`) or encodes
/// (`?dryRun=true`, `flagctl diff --json`).
public struct DocumentDiff: Sendable, Equatable {
    /// Flags only in the new document, by key.
    public var addedFlags: [String: Flag] = [:]
    /// Flags only in the old document, by key.
    public var removedFlags: [String: Flag] = [:]
    /// Flags in both that differ, in key order.
    public var changedFlags: [FlagChange] = []
    /// Cohorts only in the new document.
    public var addedCohorts: [String: Condition] = [:]
    /// Cohorts only in the old document.
    public var removedCohorts: [String: Condition] = [:]
    /// Cohorts in both whose definition differs, in name order.
    public var changedCohorts: [CohortChange] = []

    /// True when the documents are equal in content.
    public var isEmpty: Bool {
        addedFlags.isEmpty && removedFlags.isEmpty && changedFlags.isEmpty
            && addedCohorts.isEmpty && removedCohorts.isEmpty && changedCohorts.isEmpty
    }

    /// The diff from `old` to `new`.
    public init(from old: FlagDocument, to new: FlagDocument) {
        for key in new.sortedFlagKeys {
            guard let newFlag = new.flags[key] else { continue }
            if let oldFlag = old.flags[key] {
                let changes = FlagChange.changes(from: oldFlag, to: newFlag)
                if !changes.isEmpty { changedFlags.append(FlagChange(key: key, changes: changes)) }
            } else {
                addedFlags[key] = newFlag
            }
        }
        for (key, flag) in old.flags where new.flags[key] == nil { removedFlags[key] = flag }
        for name in new.sortedCohortNames {
            guard let newCohort = new.cohorts[name] else { continue }
            if let oldCohort = old.cohorts[name] {
                if oldCohort != newCohort { changedCohorts.append(CohortChange(name: name, old: oldCohort, new: newCohort)) }
            } else {
                addedCohorts[name] = newCohort
            }
        }
        for (name, cohort) in old.cohorts where new.cohorts[name] == nil { removedCohorts[name] = cohort }
    }
}

/// A cohort whose definition changed.
public struct CohortChange: Sendable, Equatable {
    /// The cohort's name.
    public let name: String
    /// The definition before.
    public let old: Condition
    /// The definition after.
    public let new: Condition
}

/// A flag present on both sides whose definition changed, and exactly how.
public struct FlagChange: Sendable, Equatable {
    /// The flag's key.
    public let key: String
    /// Each change, in the order: type, description, default, salt, prerequisites, rules.
    public let changes: [Change]

    /// One change of one part of a flag.
    public enum Change: Sendable, Equatable {
        /// The value type changed.
        case type(from: FlagType, to: FlagType)
        /// The description changed.
        case description(from: String?, to: String?)
        /// The default value changed.
        case defaultValue(from: JSONValue, to: JSONValue)
        /// The bucketing salt changed (this reshuffles every rollout of the flag).
        case salt(from: String?, to: String?)
        /// A prerequisite was added, removed or now requires another value.
        case prerequisite(flag: String, from: JSONValue?, to: JSONValue?)
        /// A rule was inserted at `index` of the new rules.
        case ruleAdded(index: Int, rule: Rule)
        /// The rule at `index` of the old rules was removed.
        case ruleRemoved(index: Int, rule: Rule)
        /// A rule changed in place (its position may have moved when others were added or removed).
        case ruleChanged(oldIndex: Int, newIndex: Int, from: Rule, to: Rule)
    }

    static func changes(from old: Flag, to new: Flag) -> [Change] {
        var changes: [Change] = []
        if old.type != new.type { changes.append(.type(from: old.type, to: new.type)) }
        if old.description != new.description { changes.append(.description(from: old.description, to: new.description)) }
        if old.defaultValue != new.defaultValue { changes.append(.defaultValue(from: old.defaultValue, to: new.defaultValue)) }
        if old.salt != new.salt { changes.append(.salt(from: old.salt, to: new.salt)) }
        let prerequisiteKeys = Set(old.requires.keys).union(new.requires.keys).sorted(by: JSONValue.utf8Order)
        for key in prerequisiteKeys where old.requires[key] != new.requires[key] {
            changes.append(.prerequisite(flag: key, from: old.requires[key], to: new.requires[key]))
        }
        changes.append(contentsOf: ruleChanges(from: old.rules, to: new.rules))
        return changes
    }

    /// Aligns the two rule lists on their longest common subsequence; between two aligned rules,
    /// unaligned old and new rules are paired in order as changes and the rest are removals or
    /// additions. So inserting a rule at the top reads as one addition, not as every rule changed.
    static func ruleChanges(from old: [Rule], to new: [Rule]) -> [Change] {
        let anchors = longestCommonSubsequence(old, new)
        var changes: [Change] = []
        var oldStart = 0
        var newStart = 0
        for (oldAnchor, newAnchor) in anchors + [(old.count, new.count)] {
            let removed = Array(oldStart..<oldAnchor)
            let added = Array(newStart..<newAnchor)
            for pair in 0..<max(removed.count, added.count) {
                switch (pair < removed.count ? removed[pair] : nil, pair < added.count ? added[pair] : nil) {
                case (let oldIndex?, let newIndex?):
                    changes.append(.ruleChanged(oldIndex: oldIndex, newIndex: newIndex, from: old[oldIndex], to: new[newIndex]))
                case (let oldIndex?, nil): changes.append(.ruleRemoved(index: oldIndex, rule: old[oldIndex]))
                case (nil, let newIndex?): changes.append(.ruleAdded(index: newIndex, rule: new[newIndex]))
                case (nil, nil): break
                }
            }
            oldStart = oldAnchor + 1
            newStart = newAnchor + 1
        }
        return changes
    }

    private static func longestCommonSubsequence(_ old: [Rule], _ new: [Rule]) -> [(Int, Int)] {
        guard !old.isEmpty, !new.isEmpty else { return [] }
        var lengths = [[Int]](repeating: [Int](repeating: 0, count: new.count + 1), count: old.count + 1)
        for i in stride(from: old.count - 1, through: 0, by: -1) {
            for j in stride(from: new.count - 1, through: 0, by: -1) {
                lengths[i][j] = old[i] == new[j] ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
            }
        }
        var pairs: [(Int, Int)] = []
        var i = 0
        var j = 0
        while i < old.count, j < new.count {
            if old[i] == new[j] {
                pairs.append((i, j))
                i += 1
                j += 1
            } else if lengths[i + 1][j] >= lengths[i][j + 1] {
                i += 1
            } else {
                j += 1
            }
        }
        return pairs
    }
}
