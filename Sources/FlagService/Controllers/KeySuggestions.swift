/// The existing keys closest to one that is not there, for "did you mean" answers to a typo.
///
/// A flip of `premiumFeaturesLokced` must not publish a new flag: the refusal names the flags the writer
/// probably meant, ranked by Levenshtein distance over Unicode scalars (case differences count as edits, as
/// keys are case-sensitive).
public enum KeySuggestions {
    /// At most `limit` keys of `candidates` within a distance of a third of `key`'s length (at least 2), nearest
    /// first, ties in key order.
    public static func closest(to key: String, in candidates: some Sequence<String>, limit: Int = 3) -> [String] {
        let target = Array(key.unicodeScalars)
        let threshold = max(2, target.count / 3)
        var scored: [(distance: Int, key: String)] = []
        for candidate in candidates {
            let scalars = Array(candidate.unicodeScalars)
            // The distance is at least the difference in length: skip the table for far-off keys.
            guard abs(scalars.count - target.count) <= threshold else { continue }
            let distance = editDistance(target, scalars)
            if distance <= threshold { scored.append((distance, candidate)) }
        }
        scored.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.key < $1.key }
        return scored.prefix(limit).map(\.key)
    }

    /// Levenshtein distance (insertions, deletions, substitutions), two rows of the table at a time.
    public static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
