import AppStoreNotifications

/// Reads a price or offer experiment from the stored notifications alone (docs/guards.md, "Experiments").
///
/// A subscription belongs to the arm whose product (and offer, when the arm has one) its first start in the range
/// carries; every later notification of that subscription (its `subscription` hash) counts for that arm, whatever
/// product it later moves to. Starts before the range and their subscriptions are not in the experiment. The arms'
/// outcomes are counted by `OutcomeReport.compute`, so every count means what it means in the outcomes.
public enum ExperimentAnalysis {
    /// The experiment's default level.
    public static let defaultAlpha = 0.05

    /// Analyses `arms` over [`from`, `to`) (days, UTC: the sequential test looks at each day's end).
    ///
    /// `history` is the notifications signed in the range (more are ignored), in any order.
    public static func analyze(arms: [ExperimentArm], history: [NotificationRecord], from: Int64, to: Int64,
                               alpha: Double = defaultAlpha,
                               sampleRatioAlpha: Double = SampleRatioCheck.defaultAlpha) throws(ExperimentError) -> ExperimentReport {
        try validate(arms: arms, alpha: alpha, sampleRatioAlpha: sampleRatioAlpha)
        let start = OutcomeBucket.day.floor(from)
        let end = max(start, OutcomeBucket.day.ceil(to))
        let records = history.filter { $0.signedDate >= start && $0.signedDate < end }
            .sorted { ($0.signedDate, $0.notificationUUID) < ($1.signedDate, $1.notificationUUID) }
        var armOf: [String: Int] = [:]
        var perArm = Array(repeating: [NotificationRecord](), count: arms.count)
        for record in records {
            let arm: Int?
            if let key = record.subscription {
                if armOf[key] == nil, isStart(record), let matched = match(record, arms) { armOf[key] = matched }
                arm = armOf[key]
            } else {
                arm = match(record, arms)
            }
            if let arm { perArm[arm].append(record) }
        }
        let results = arms.indices.map { index in
            result(arms[index], OutcomeReport.compute(history: perArm[index], from: start, to: end, bucket: .day, product: nil))
        }
        let pairs = arms.count * (arms.count - 1) / 2
        var comparisons: [ArmComparison] = []
        for first in arms.indices {
            for second in arms.indices where second > first {
                let test = SequentialRatioTest(shareA: arms[first].share, shareB: arms[second].share, alpha: alpha / Double(pairs))
                var outcome = test.evaluate(looks: zip(results[first].dailyStarted, results[second].dailyStarted).map { (a: $0, b: $1) })
                outcome.pValue = min(1, outcome.pValue * Double(pairs))
                comparisons.append(ArmComparison(first: first, second: second, result: outcome))
            }
        }
        let checks = SampleRatioCheck.check(arms: arms, dailyStarted: results.map(\.dailyStarted), alpha: sampleRatioAlpha)
        return ExperimentReport(arms: results, comparisons: comparisons, sampleRatioChecks: checks, alpha: alpha)
    }

    /// Two or more arms, positive finite shares, distinct product-and-offer pairs, levels in (0, 0.5).
    static func validate(arms: [ExperimentArm], alpha: Double, sampleRatioAlpha: Double) throws(ExperimentError) {
        guard arms.count >= 2 else { throw ExperimentError(field: "arms", message: "an experiment needs two arms or more") }
        var seen: Set<String> = []
        for (index, arm) in arms.enumerated() {
            guard !arm.product.isEmpty else { throw ExperimentError(field: "arms[\(index)].product", message: "is empty") }
            guard arm.share.isFinite, arm.share > 0 else {
                throw ExperimentError(field: "arms[\(index)].share", message: "must be a number > 0")
            }
            guard seen.insert(arm.name).inserted else {
                throw ExperimentError(field: "arms[\(index)]", message: "\(arm.name) is another arm's product and offer: its subscriptions could not be told apart")
            }
            if let price = arm.listPrice, price < 0 {
                throw ExperimentError(field: "arms[\(index)].listPrice", message: "must be ≥ 0")
            }
        }
        guard alpha.isFinite, alpha > 0, alpha < 0.5 else { throw ExperimentError(field: "alpha", message: "must be in (0, 0.5)") }
        guard sampleRatioAlpha.isFinite, sampleRatioAlpha > 0, sampleRatioAlpha < 0.5 else {
            throw ExperimentError(field: "sampleRatioAlpha", message: "must be in (0, 0.5)")
        }
    }

    /// The arm a record's product and offer name: the arm with exactly its offer, else the product's arm without one.
    static func match(_ record: NotificationRecord, _ arms: [ExperimentArm]) -> Int? {
        guard let product = record.productID else { return nil }
        if let offer = record.offerIdentifier,
           let exact = arms.firstIndex(where: { $0.product == product && $0.offer == offer }) {
            return exact
        }
        return arms.firstIndex { $0.product == product && $0.offer == nil }
    }

    /// `SUBSCRIBED` `INITIAL_BUY` or `RESUBSCRIBE`, as `started` counts them.
    static func isStart(_ record: NotificationRecord) -> Bool {
        record.notificationType == "SUBSCRIBED" && (record.subtype == "INITIAL_BUY" || record.subtype == "RESUBSCRIBE")
    }

    /// An arm's figures from its report.
    private static func result(_ arm: ExperimentArm, _ report: OutcomeReport) -> ArmResult {
        let totals = report.totals
        var running = 0
        let daily = report.series.map { counts -> Int in
            running += counts[.started]
            return running
        }
        let paid = totals[.started] - totals[.freeTrialStarts] + totals[.renewals]
        let revenue = arm.listPrice.map { price -> Int64 in
            let (value, overflow) = price.multipliedReportingOverflow(by: Int64(paid - totals[.refunds]))
            return overflow ? Int64.max : value
        }
        return ArmResult(arm: arm, started: totals[.started], introStarts: totals[.introStarts],
                         freeTrialStarts: totals[.freeTrialStarts], introConversions: totals[.introConversions],
                         renewals: totals[.renewals], refunds: totals[.refunds], paidPeriods: paid,
                         revenueAtListPrice: revenue, dailyStarted: daily)
    }
}
