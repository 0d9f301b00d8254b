import Foundation

/// How many installs of a sample would see a different value per flag, old document against new.
///
/// In FlagKit so that `flagctl diff --impact` and the server's preview (`POST .../preview`) count with one implementation.
public struct ImpactReport: Sendable, Equatable {
    /// One from -> to change of value and how many installs make it. `nil` means the flag is absent.
    public struct Transition: Sendable, Hashable {
        /// The value before (nil: the flag does not exist on the old side).
        public let from: JSONValue?
        /// The value after (nil: the flag does not exist on the new side).
        public let to: JSONValue?
        /// How many sampled installs.
        public var count: Int
    }

    /// The changes of one flag, largest transition first.
    public struct FlagImpact: Sendable, Equatable {
        /// The flag's key.
        public let key: String
        /// Installs whose value changes at all.
        public let changed: Int
        /// Each from -> to transition.
        public let transitions: [Transition]
    }

    /// Sampled installs.
    public let sampleSize: Int
    /// Every flag of either side, in key order (flags nobody sees change have `changed == 0`).
    public let flags: [FlagImpact]
}

/// Evaluates both documents for every install of a sample and counts the differences.
public enum ImpactAnalysis {
    /// The report for `sample` from `old` to `new`.
    ///
    /// A flag whose definition, the cohorts it refers to and its prerequisites (transitively) are
    /// identical on both sides gives every install the same value, so it is not evaluated at all.
    /// The rest is split over the cores in chunks; each chunk counts on its own, then the counts are added.
    public static func measure(from old: FlagDocument, to new: FlagDocument, sample: [EvaluationContext]) -> ImpactReport {
        let keys = Set(old.flags.keys).union(new.flags.keys).sorted(by: JSONValue.utf8Order)
        let evaluated = keys.filter { !unaffected($0, old, new, depth: 0) }
        let chunkSize = 4096
        let chunkCount = (sample.count + chunkSize - 1) / chunkSize
        // Presence looked up once, not per install: a dictionary lookup copies the whole `Flag` out.
        let inOld = evaluated.map { old.flags[$0] != nil }
        let inNew = evaluated.map { new.flags[$0] != nil }
        let collector = Collector(flags: evaluated.count)
        DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
            var counts = [[PairKey: Int]](repeating: [:], count: evaluated.count)
            for index in (chunk * chunkSize)..<min(sample.count, (chunk + 1) * chunkSize) {
                let context = sample[index]
                for (flagIndex, key) in evaluated.enumerated() {
                    // Typed as optionals: JSONValue is ExpressibleByNilLiteral, so a bare `nil` would be JSON null.
                    let before: JSONValue? = inOld[flagIndex] ? old.evaluate(key, context: context).value : Optional.none
                    let after: JSONValue? = inNew[flagIndex] ? new.evaluate(key, context: context).value : Optional.none
                    if before != after { counts[flagIndex][PairKey(from: before, to: after), default: 0] += 1 }
                }
            }
            collector.add(counts)
        }
        let totals = collector.totals
        let flags = keys.map { key -> ImpactReport.FlagImpact in
            guard let flagIndex = evaluated.firstIndex(of: key) else { return ImpactReport.FlagImpact(key: key, changed: 0, transitions: []) }
            let transitions = totals[flagIndex].map { ImpactReport.Transition(from: $0.key.from, to: $0.key.to, count: $0.value) }
                .sorted { ($0.count, describe($1.from) + describe($1.to)) > ($1.count, describe($0.from) + describe($0.to)) }
            return ImpactReport.FlagImpact(key: key, changed: transitions.reduce(0) { $0 + $1.count }, transitions: transitions)
        }
        return ImpactReport(sampleSize: sample.count, flags: flags)
    }

    /// Whether a flag gives every install the same value on both sides: same definition, same
    /// cohorts (with the cohorts they refer to) and unaffected prerequisites.
    static func unaffected(_ key: String, _ old: FlagDocument, _ new: FlagDocument, depth: Int) -> Bool {
        guard depth < 64, let before = old.flags[key], let after = new.flags[key], before == after else { return false }
        var pending = before.rules.compactMap(\.cohort)
        var seen: Set<String> = []
        while let cohort = pending.popLast() {
            guard seen.insert(cohort).inserted else { continue }
            guard let condition = old.cohorts[cohort], condition == new.cohorts[cohort] else { return false }
            pending += condition.referencedCohorts
        }
        return before.requires.keys.allSatisfy { unaffected($0, old, new, depth: depth + 1) }
    }

    /// `false`, `"text"`, or `(absent)`.
    static func describe(_ value: JSONValue?) -> String { value?.canonicalString ?? "(absent)" }

    struct PairKey: Hashable {
        let from: JSONValue?
        let to: JSONValue?
    }

    /// Adds up the chunks' counts; the lock is taken once per chunk.
    private final class Collector: @unchecked Sendable {
        private let lock = NSLock()
        private var sums: [[PairKey: Int]]

        init(flags: Int) { sums = [[PairKey: Int]](repeating: [:], count: flags) }

        func add(_ counts: [[PairKey: Int]]) {
            lock.lock()
            defer { lock.unlock() }
            for (index, flagCounts) in counts.enumerated() { sums[index].merge(flagCounts, uniquingKeysWith: +) }
        }

        var totals: [[PairKey: Int]] {
            lock.lock()
            defer { lock.unlock() }
            return sums
        }
    }
}
