/// A sample-ratio check between arms that show the same terms (docs/guards.md, "What the sample-ratio check can and
/// cannot see"). Without app telemetry no exposure is counted, so the split cannot be checked on installs; what can
/// be checked is that arms whose paywalls are the same (same list price and currency, no offer: an A/A pair, such as
/// two product ids at one price) start subscriptions in the ratio of their shares. A mismatch there means the
/// assignment or the attribution is broken, and every comparison of the experiment is suspect.
public struct SampleRatioCheck: Sendable, Equatable {
    /// The arms' indexes (two or more), the first the reference.
    public var arms: [Int]
    /// The always-valid p-value of the split (the smallest over the pairs with the reference, Bonferroni-corrected).
    public var pValue: Double
    /// The level: stricter than the experiment's, as usual for this check.
    public var alpha: Double
    /// Whether the started counts contradict the shares.
    public var mismatch: Bool { pValue <= alpha }

    /// The customary level of a sample-ratio check.
    public static let defaultAlpha = 0.001

    /// A check's result.
    public init(arms: [Int], pValue: Double, alpha: Double) {
        self.arms = arms
        self.pValue = pValue
        self.alpha = alpha
    }

    /// Checks each group of arms with the same terms, on their cumulative daily started counts.
    static func check(arms: [ExperimentArm], dailyStarted: [[Int]], alpha: Double) -> [SampleRatioCheck] {
        var groups: [String: [Int]] = [:]
        var order: [String] = []
        for (index, arm) in arms.enumerated() where arm.offer == nil {
            guard let price = arm.listPrice else { continue }
            let key = "\(price) \(arm.currency ?? "")"
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(index)
        }
        return order.compactMap { key -> SampleRatioCheck? in
            guard let members = groups[key], members.count >= 2, let reference = members.first else { return nil }
            let pairs = Double(members.count - 1)
            var pValue = 1.0
            for other in members.dropFirst() {
                let test = SequentialRatioTest(shareA: arms[reference].share, shareB: arms[other].share, alpha: alpha / pairs)
                let looks = zip(dailyStarted[reference], dailyStarted[other]).map { (a: $0, b: $1) }
                pValue = min(pValue, min(1, test.evaluate(looks: looks).pValue * pairs))
            }
            return SampleRatioCheck(arms: members, pValue: pValue, alpha: alpha)
        }
    }
}
