import Foundation

/// An always-valid test that two arms' counts match their allocation shares (docs/guards.md, "Experiments"): a
/// mixture sequential probability ratio test (mSPRT) on the binomial split of the two counts.
///
/// Randomisation gives every arm the same exposure per unit of share, so under "equal rates" the next start that
/// lands in either arm lands in arm A with probability p₀ = shareA / (shareA + shareB), whatever the traffic: given
/// the total, A's count is Binomial(a + b, p₀). Mixing the likelihood over p ~ Beta(κp₀, κ(1 − p₀)) gives, in
/// closed form, Λ = B(a + κp₀, b + κ(1 − p₀)) / B(κp₀, κ(1 − p₀)) / (p₀ᵃ (1 − p₀)ᵇ), a nonnegative martingale under
/// H₀; by Ville's inequality P(Λ ever ≥ 1/α) ≤ α, so the test may be read after every start, every day, or
/// whenever, and stays at level α. Its p-value is the running minimum of 1/Λ over the looks; the set of proportions
/// p whose own Λ(p) stays below 1/α is a confidence sequence, turned into one for the rate ratio.
public struct SequentialRatioTest: Sendable, Equatable {
    /// Arm A's allocation share (any positive scale: 50 and 50, or 0.5 and 0.5).
    public var shareA: Double
    /// Arm B's allocation share.
    public var shareB: Double
    /// The level: the chance of ever deciding when the rates are equal.
    public var alpha: Double
    /// κ, the mixture's concentration: its standard deviation around p₀ is about √(p₀(1 − p₀)/κ); 100 puts its
    /// weight on rate ratios of roughly 0.7 to 1.5, the effects a price test looks for.
    public var concentration: Double

    /// The default κ.
    public static let defaultConcentration = 100.0

    /// A test; shares must be positive and alpha in (0, 1) (`ExperimentAnalysis` validates its input).
    public init(shareA: Double, shareB: Double, alpha: Double = 0.05, concentration: Double = SequentialRatioTest.defaultConcentration) {
        self.shareA = shareA
        self.shareB = shareB
        self.alpha = alpha
        self.concentration = concentration
    }

    /// p₀: the chance that a start lands in A under equal rates.
    public var nullProportion: Double { shareA / (shareA + shareB) }

    /// ln Λ(p) after `a` starts in A and `b` in B, against the proportion `p` (default p₀).
    public func logLikelihoodRatio(a: Int, b: Int, against p: Double? = nil) -> Double {
        let p = p ?? nullProportion
        return logMarginal(a: a, b: b) - logLikelihood(a: a, b: b, p: p)
    }

    /// The result after looks at cumulative counts (each look's A and B since the start, in time order).
    public func evaluate(looks: [(a: Int, b: Int)]) -> SequentialRatioResult {
        var pValue = 1.0
        var interval: ClosedRange<Double> = 0...Double.infinity
        for look in looks where look.a >= 0 && look.b >= 0 {
            pValue = min(pValue, exp(-logLikelihoodRatio(a: look.a, b: look.b)))
            let current = rateRatioInterval(a: look.a, b: look.b)
            // The running intersection is a confidence sequence too; should it be empty (a chance below α), the
            // latest interval is kept rather than none.
            let lower = max(interval.lowerBound, current.lowerBound)
            let upper = min(interval.upperBound, current.upperBound)
            interval = lower <= upper ? lower...upper : current
        }
        let last = looks.last ?? (0, 0)
        let estimate = last.b > 0 ? (Double(last.a) / shareA) / (Double(last.b) / shareB) : (last.a > 0 ? .infinity : 1)
        return SequentialRatioResult(pValue: min(1, pValue), rateRatio: estimate, interval: interval, decided: pValue <= alpha)
    }

    /// The rate ratio (A's rate over B's) of every proportion p with Λ(p) < 1/α at these counts.
    public func rateRatioInterval(a: Int, b: Int) -> ClosedRange<Double> {
        let n = a + b
        guard n > 0 else { return 0...Double.infinity }
        let bound = logMarginal(a: a, b: b) + log(alpha)
        let inside = { (p: Double) in self.logLikelihood(a: a, b: b, p: p) > bound }
        let center = Double(a) / Double(n)
        let lowerP = a == 0 ? 0 : bisect(outside: 0, inside: center, inside)
        let upperP = b == 0 ? 1 : bisect(outside: 1, inside: center, inside)
        return ratio(lowerP)...ratio(upperP)
    }

    /// A's rate over B's for the proportion p of starts in A.
    private func ratio(_ p: Double) -> Double {
        p >= 1 ? .infinity : p * shareB / ((1 - p) * shareA)
    }

    /// ln ∫ pᵃ(1 − p)ᵇ dBeta(κp₀, κ(1 − p₀)).
    private func logMarginal(a: Int, b: Int) -> Double {
        let alphaPrior = concentration * nullProportion
        let betaPrior = concentration * (1 - nullProportion)
        return TailProbability.logBeta(Double(a) + alphaPrior, Double(b) + betaPrior) - TailProbability.logBeta(alphaPrior, betaPrior)
    }

    /// ln pᵃ(1 − p)ᵇ.
    private func logLikelihood(a: Int, b: Int, p: Double) -> Double {
        let left = a == 0 ? 0 : Double(a) * log(p)
        let right = b == 0 ? 0 : Double(b) * log1p(-p)
        return left + right
    }

    /// The boundary between a point outside and one inside (the log-likelihood is concave, so there is one).
    private func bisect(outside: Double, inside: Double, _ isInside: (Double) -> Bool) -> Double {
        var out = outside
        var inn = inside
        for _ in 0..<60 {
            let middle = (out + inn) / 2
            if isInside(middle) { inn = middle } else { out = middle }
        }
        return inn
    }
}

/// What a `SequentialRatioTest` says after its looks.
public struct SequentialRatioResult: Sendable, Equatable {
    /// The always-valid p-value: the running minimum of 1/Λ.
    public var pValue: Double
    /// A's rate over B's at the last look: (a / shareA) / (b / shareB).
    public var rateRatio: Double
    /// The confidence sequence for that ratio at level α (the running intersection over the looks).
    public var interval: ClosedRange<Double>
    /// Whether the p-value reached α: until then, "not decided yet".
    public var decided: Bool

    /// A result.
    public init(pValue: Double, rateRatio: Double, interval: ClosedRange<Double>, decided: Bool) {
        self.pValue = pValue
        self.rateRatio = rateRatio
        self.interval = interval
        self.decided = decided
    }
}
