import FlagKit

/// The arms of a price or offer experiment read from its flag (docs/guards.md, "Running an experiment"): which
/// product (and offer) each slice of the buckets sees, exactly as `FlagDocument.evaluate` splits installs.
///
/// Evaluation tries the rules in order on one bucket per install (`Bucketing.bucket(salt:unit:)`): a rule with a
/// rollout of r % takes the buckets below r × 1000 that no earlier rule took, so its slice is
/// [max(earlier rollouts), max(r, earlier rollouts)); a rule without a rollout takes every bucket left and ends the
/// list; the default gets the rest. A slice whose value is `""` shows the default paywall and is in no arm; slices
/// with the same value are one arm.
struct ExperimentSplit: Sendable, Equatable {
    /// One arm: the product and offer its value names and the buckets that see it.
    struct Arm: Sendable, Equatable {
        /// The App Store product id.
        var product: String
        /// The offer identifier after the `/`, or nil.
        var offer: String?
        /// The buckets (of `Bucketing.bucketCount`) whose installs see this arm, in order.
        var buckets: [Range<Int>]

        /// Its share in thousandths of a percent (of the 100,000 buckets).
        var thousandths: Int { buckets.reduce(0) { $0 + $1.count } }
        /// The flag value that names it.
        var value: String { offer.map { "\(product)/\($0)" } ?? product }
    }

    /// The bucketing salt (the flag's `salt`, else its key): a new salt reshuffles the installs, a new experiment.
    var salt: String
    /// Two or more arms with a share above zero, in the order their values first appear (rules, then default).
    var arms: [Arm]

    /// Why a flag is not an experiment (`422 not_an_experiment`).
    struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, in one line.
        var message: String
        var description: String { message }
    }

    /// The split of `flag` (stored under `key`), or why it is not an experiment.
    static func derive(key: String, flag: Flag) throws(Refusal) -> ExperimentSplit {
        guard flag.type == .string else { throw Refusal(message: "\(key) is a \(flag.type.rawValue) flag; an experiment is a string flag") }
        // A prerequisite gives installs that miss it the default whatever their bucket: not a split by buckets alone.
        guard flag.requires.isEmpty else { throw Refusal(message: "\(key) has prerequisites; an experiment's split is by buckets alone") }
        var arms: [Arm] = []
        func add(_ value: JSONValue, _ range: Range<Int>, _ place: String) throws(Refusal) {
            guard case .string(let text) = value else { throw Refusal(message: "\(place) of \(key) is not a string") }
            guard !text.isEmpty, !range.isEmpty else { return }
            guard let (product, offer) = parse(text) else {
                throw Refusal(message: "\(place) of \(key) is \"\(text)\", not a product id or product/offer")
            }
            if let index = arms.firstIndex(where: { $0.product == product && $0.offer == offer }) {
                arms[index].buckets.append(range)
            } else {
                arms.append(Arm(product: product, offer: offer, buckets: [range]))
            }
        }
        var covered = 0
        for (index, rule) in flag.rules.enumerated() {
            guard rule.cohort == nil else {
                throw Refusal(message: "rule \(index) of \(key) has a cohort; an experiment's rules are a percentage split of every install")
            }
            let upper = rule.rollout.map { max(covered, $0.thousandths) } ?? Int(Bucketing.bucketCount)
            try add(rule.value, covered..<upper, "rule \(index)")
            covered = upper
            if rule.rollout == nil { break }
        }
        try add(flag.defaultValue, covered..<Int(Bucketing.bucketCount), "the default")
        guard arms.count >= 2 else {
            throw Refusal(message: "\(key) splits installs over \(arms.count) product\(arms.count == 1 ? "" : "s"); an experiment needs two arms or more")
        }
        return ExperimentSplit(salt: flag.salt ?? key, arms: arms)
    }

    /// The arm whose buckets hold `bucket`, or nil (the default paywall).
    func arm(forBucket bucket: Int) -> Int? {
        arms.firstIndex { $0.buckets.contains { $0.contains(bucket) } }
    }

    /// `product` or `product/offer`, each part 1 to 100 of the characters App Store Connect allows in identifiers
    /// (letters, digits, `.`, `_`, `-`); nil otherwise.
    static func parse(_ value: String) -> (product: String, offer: String?)? {
        let parts = value.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy(isIdentifier) else { return nil }
        return (String(parts[0]), parts.count == 2 ? String(parts[1]) : nil)
    }

    private static func isIdentifier(_ text: Substring) -> Bool {
        (1...100).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
    }
}
