@testable import OutcomeAnalysis
import Testing

@Suite struct TailProbabilityTests {
    /// Sums of the mass function, term by term, as the reference.
    static func binomialMass(_ n: Int, _ p: Double, _ k: Int) -> Double {
        var choose = 1.0
        for i in 0..<k { choose = choose * Double(n - i) / Double(i + 1) }
        var value = choose
        for _ in 0..<k { value *= p }
        for _ in 0..<(n - k) { value *= 1 - p }
        return value
    }

    @Test func binomialTailsMatchTheDirectSums() {
        for (n, p) in [(10, 0.5), (40, 0.125), (60, 0.9), (1, 0.3)] {
            for k in -1...(n + 1) {
                let upper = (max(0, k)...max(n, max(0, k))).filter { $0 <= n }.reduce(0.0) { $0 + Self.binomialMass(n, p, $1) }
                let lower = k < 0 ? 0 : (0...min(k, n)).reduce(0.0) { $0 + Self.binomialMass(n, p, $1) }
                #expect(abs(TailProbability.binomialUpper(n: n, p: p, k: k) - (k > n ? 0 : upper)) < 1e-12, "n \(n) p \(p) k \(k)")
                #expect(abs(TailProbability.binomialLower(n: n, p: p, k: k) - lower) < 1e-12, "n \(n) p \(p) k \(k)")
            }
        }
    }

    @Test func poissonTailsMatchKnownValues() {
        // P(Poisson(2) ≥ 5) = 1 − e⁻²(1 + 2 + 2 + 4/3 + 2/3) = 1 − 7e⁻²
        #expect(abs(TailProbability.poissonUpper(mean: 2, k: 5) - (1 - 7 * 0.1353352832366127)) < 1e-12)
        #expect(abs(TailProbability.poissonLower(mean: 2, k: 4) - 7 * 0.1353352832366127) < 1e-12)
        #expect(TailProbability.poissonUpper(mean: 2, k: 0) == 1 && TailProbability.poissonLower(mean: 2, k: -1) == 0)
        #expect(TailProbability.poissonUpper(mean: 0, k: 1) == 0 && TailProbability.poissonLower(mean: 0, k: 0) == 1)
        // Far in the tail the sum stays positive and tiny, not 0 or NaN from 1 − 1.
        let far = TailProbability.poissonUpper(mean: 10, k: 60)
        #expect(far > 0 && far < 1e-20)
        let total = TailProbability.poissonUpper(mean: 50, k: 50) + TailProbability.poissonLower(mean: 50, k: 49)
        #expect(abs(total - 1) < 1e-12)
    }

    @Test func logBetaIsTheBetaFunction() {
        // B(2, 3) = 1! 2! / 4! = 1/12
        #expect(abs(TailProbability.logBeta(2, 3) - (-2.4849066497880004)) < 1e-12)
    }
}
