import FlagKit

/// Two documents whose flags change in every way impact counts (a rollout widened, a value changed, a flag
/// added and one removed, one untouched), for `diff --impact` run as a process.
enum ImpactFixtures {
    static let before = """
    {"flags": {
       "monetizationEnabled": {"type": "boolean", "default": true},
       "premiumFeaturesLocked": {"type": "boolean", "default": false, "requires": {"monetizationEnabled": true},
                                 "rules": [{"cohort": "beta", "value": true, "rollout": 10}]},
       "copy": {"type": "string", "default": "a", "rules": [{"cohort": "english", "value": "b"}]},
       "gone": {"type": "integer", "default": 1},
       "steady": {"type": "boolean", "default": true, "rules": [{"cohort": "english", "value": false}]}},
     "cohorts": {"beta": {"channel": {"in": ["testflight"]}, "appVersion": {"gte": "2.4.0"}},
                 "english": {"locale": {"startsWith": "en"}}}}
    """
    static let after = """
    {"flags": {
       "monetizationEnabled": {"type": "boolean", "default": true, "rules": [{"cohort": "english", "value": false, "rollout": 50}]},
       "premiumFeaturesLocked": {"type": "boolean", "default": false, "requires": {"monetizationEnabled": true},
                                 "rules": [{"cohort": "beta", "value": true, "rollout": 25}]},
       "copy": {"type": "string", "default": "a", "rules": [{"cohort": "english", "value": "c"}]},
       "added": {"type": "number", "default": 1.5},
       "steady": {"type": "boolean", "default": true, "rules": [{"cohort": "english", "value": false}]}},
     "cohorts": {"beta": {"channel": {"in": ["testflight", "debug"]}, "appVersion": {"gte": "2.4.0"}},
                 "english": {"locale": {"startsWith": "en"}}}}
    """

    /// Per flag, `"from -> to"` to count, as FlagKit's `ImpactAnalysis` measures it on `sample`.
    static func expectedCounts(_ sample: [EvaluationContext]) throws -> [String: [String: Int]] {
        let report = ImpactAnalysis.measure(from: try FlagDocument.decode(before), to: try FlagDocument.decode(after), sample: sample)
        var counts: [String: [String: Int]] = [:]
        for flag in report.flags {
            for transition in flag.transitions {
                let from = transition.from?.canonicalString ?? "(absent)"
                let to = transition.to?.canonicalString ?? "(absent)"
                counts[flag.key, default: [:]]["\(from) -> \(to)"] = transition.count
            }
        }
        return counts
    }
}
