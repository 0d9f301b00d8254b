import Foundation

/// The exact tail probabilities the guards and experiments test with: binomial and Poisson tails and the log of the
/// beta function. Each tail is summed from its first term outwards while the terms still matter (they fall faster
/// than geometrically past the mode), so a tail costs a few standard deviations' worth of terms, not `n` of them;
/// only `lgamma`, `log` and `exp` of the C library are used.
enum TailProbability {
    /// The relative size below which further terms of a tail no longer change it.
    private static let negligible = 1e-17

    /// ln B(a, b) = ln Γ(a) + ln Γ(b) − ln Γ(a + b).
    static func logBeta(_ a: Double, _ b: Double) -> Double {
        lgamma(a) + lgamma(b) - lgamma(a + b)
    }

    /// ln P(Binomial(n, p) = k).
    static func binomialLogMass(n: Int, p: Double, k: Int) -> Double {
        guard k >= 0, k <= n else { return -.infinity }
        if p <= 0 { return k == 0 ? 0 : -.infinity }
        if p >= 1 { return k == n ? 0 : -.infinity }
        let choose = lgamma(Double(n) + 1) - lgamma(Double(k) + 1) - lgamma(Double(n - k) + 1)
        return choose + Double(k) * log(p) + Double(n - k) * log1p(-p)
    }

    /// P(Binomial(n, p) ≥ k).
    static func binomialUpper(n: Int, p: Double, k: Int) -> Double {
        if k <= 0 { return 1 }
        if k > n { return 0 }
        if Double(k) <= Double(n) * p { return max(0, 1 - binomialLower(n: n, p: p, k: k - 1)) }
        // Upward from k, past the mode: each term is the previous × (n − i) / (i + 1) × p / (1 − p).
        var term = exp(binomialLogMass(n: n, p: p, k: k))
        var sum = term
        let odds = p / (1 - p)
        var i = k
        while i < n, term > sum * negligible {
            term *= Double(n - i) / Double(i + 1) * odds
            sum += term
            i += 1
        }
        return min(1, sum)
    }

    /// P(Binomial(n, p) ≤ k).
    static func binomialLower(n: Int, p: Double, k: Int) -> Double {
        if k < 0 { return 0 }
        if k >= n { return 1 }
        if Double(k) >= Double(n) * p { return max(0, 1 - binomialUpper(n: n, p: p, k: k + 1)) }
        // Downward from k, below the mode: each term is the previous × i / (n − i + 1) × (1 − p) / p.
        var term = exp(binomialLogMass(n: n, p: p, k: k))
        var sum = term
        let odds = (1 - p) / p
        var i = k
        while i > 0, term > sum * negligible {
            term *= Double(i) / Double(n - i + 1) * odds
            sum += term
            i -= 1
        }
        return min(1, sum)
    }

    /// ln P(Poisson(mean) = k).
    static func poissonLogMass(mean: Double, k: Int) -> Double {
        guard k >= 0 else { return -.infinity }
        if mean <= 0 { return k == 0 ? 0 : -.infinity }
        return Double(k) * log(mean) - mean - lgamma(Double(k) + 1)
    }

    /// P(Poisson(mean) ≥ k).
    static func poissonUpper(mean: Double, k: Int) -> Double {
        if k <= 0 { return 1 }
        if mean <= 0 { return 0 }
        if Double(k) <= mean { return max(0, 1 - poissonLower(mean: mean, k: k - 1)) }
        var term = exp(poissonLogMass(mean: mean, k: k))
        var sum = term
        var i = k
        while term > sum * negligible {
            term *= mean / Double(i + 1)
            sum += term
            i += 1
        }
        return min(1, sum)
    }

    /// P(Poisson(mean) ≤ k).
    static func poissonLower(mean: Double, k: Int) -> Double {
        if k < 0 { return 0 }
        if mean <= 0 { return 1 }
        if Double(k) >= mean { return max(0, 1 - poissonUpper(mean: mean, k: k + 1)) }
        var term = exp(poissonLogMass(mean: mean, k: k))
        var sum = term
        var i = k
        while i > 0, term > sum * negligible {
            term *= Double(i) / mean
            sum += term
            i -= 1
        }
        return min(1, sum)
    }
}
