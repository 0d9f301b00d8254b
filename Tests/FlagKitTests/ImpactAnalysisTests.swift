import Testing
@testable import FlagKit

/// The impact counts against a plain loop over FlagKit, and the shortcut for unaffected flags.
@Suite struct ImpactAnalysisTests {
    /// Two documents whose flags change in every way impact counts (a rollout widened, a value changed, a flag
    /// added and one removed, one untouched); flagctl's DiffCommandTests read the same files.
    static func fixture(_ name: String) throws -> FlagDocument {
        try FlagDocument.decode(TestSupport.bytes("Tests/FlagKitTests/Fixtures/impact-\(name).json"))
    }

    /// The count done the slow, obvious way.
    static func directCount(_ old: FlagDocument, _ new: FlagDocument, _ sample: [EvaluationContext]) -> [String: [String: Int]] {
        var counts: [String: [String: Int]] = [:]
        for key in Set(old.flags.keys).union(new.flags.keys) {
            for context in sample {
                let from = old.flags[key] == nil ? "(absent)" : old.evaluate(key, context: context).value.canonicalString
                let to = new.flags[key] == nil ? "(absent)" : new.evaluate(key, context: context).value.canonicalString
                if from != to { counts[key, default: [:]]["\(from) -> \(to)", default: 0] += 1 }
            }
        }
        return counts
    }

    static func counts(of report: ImpactReport) -> [String: [String: Int]] {
        var counts: [String: [String: Int]] = [:]
        for flag in report.flags {
            for transition in flag.transitions {
                counts[flag.key, default: [:]]["\(ImpactAnalysis.describe(transition.from)) -> \(ImpactAnalysis.describe(transition.to))"] = transition.count
            }
        }
        return counts
    }

    @Test func matchesADirectCountOnAGeneratedSample() throws {
        let old = try Self.fixture("before")
        let new = try Self.fixture("after")
        let sample = ImpactSample.generate(count: 5_000, seed: 9, pools: ImpactSample.pools(for: [old, new]))
        let report = ImpactAnalysis.measure(from: old, to: new, sample: sample)
        let direct = Self.directCount(old, new, sample)
        #expect(Self.counts(of: report) == direct)
        #expect(report.sampleSize == 5_000)
        #expect(report.flags.map(\.key) == ["added", "copy", "gone", "monetizationEnabled", "premiumFeaturesLocked", "steady"])
        #expect(report.flags.first { $0.key == "steady" }?.changed == 0)
        #expect(report.flags.first { $0.key == "gone" }?.changed == 5_000)
        // Both directions happen for premiumFeaturesLocked: more beta installs, but English ones lose monetization.
        #expect((direct["premiumFeaturesLocked"] ?? [:]).keys.sorted() == ["false -> true", "true -> false"])
    }

    @Test func unaffectedFlagsAreRecognizedAndOnlyThose() throws {
        let old = try Self.fixture("before")
        let new = try Self.fixture("after")
        #expect(ImpactAnalysis.unaffected("steady", old, new, depth: 0))
        #expect(!ImpactAnalysis.unaffected("copy", old, new, depth: 0))
        // Same definition, but its prerequisite changed.
        #expect(!ImpactAnalysis.unaffected("premiumFeaturesLocked", old, old.replacingMonetization(), depth: 0))
        #expect(!ImpactAnalysis.unaffected("added", old, new, depth: 0))
    }

    @Test func renderedLinesGroupTransitions() {
        let report = ImpactReport(sampleSize: 100_000, flags: [
            ImpactReport.FlagImpact(key: "premiumFeaturesLocked", changed: 12_403,
                                    transitions: [ImpactReport.Transition(from: false, to: true, count: 12_403)]),
            ImpactReport.FlagImpact(key: "tiny", changed: 3, transitions: [ImpactReport.Transition(from: nil, to: 1, count: 3)]),
            ImpactReport.FlagImpact(key: "same", changed: 0, transitions: []),
        ])
        #expect(report.lines == [
            "premiumFeaturesLocked: 12.4% of sampled installs change false -> true (12,403 of 100,000)",
            "tiny: <0.1% of sampled installs change (absent) -> 1 (3 of 100,000)",
            "unchanged for every sampled install: same",
        ])
    }
}

extension FlagDocument {
    /// The document with monetizationEnabled false for everyone, for dependency tests.
    func replacingMonetization() -> FlagDocument {
        var json = jsonValue.objectValue ?? [:]
        var flags = json["flags"]?.objectValue ?? [:]
        flags["monetizationEnabled"] = ["type": "boolean", "default": false]
        json["flags"] = .object(flags)
        return (try? FlagDocument(validating: .object(json))) ?? self
    }
}
