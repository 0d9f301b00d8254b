import FlagKit
import HTTPServer

/// One flag's every possible `serverEvaluationSuccess` answer, encoded once per snapshot.
///
/// A successful evaluation ends in one of `rules.count + 3` outcomes (`FlagEvaluationOutcome`: rule N,
/// whose reason follows from whether it has a rollout, or the default as `STATIC`, `DEFAULT` or
/// `DISABLED`), and the answer's bytes depend on nothing else: key, value, variant, reason, metadata.
/// So they are written here with the same writer as before, and a request returns one by reference.
final class OFREPFlagAnswers: Sendable {
    /// The flag's key.
    let key: String
    /// The flag.
    let flag: Flag
    /// Per rule: the answer object (also a bulk item) and the complete 200 response.
    private let rules: [(body: [UInt8], response: HTTPResponse)]
    /// For `STATIC`, `DEFAULT` and `DISABLED`, in that order.
    private let defaults: [(body: [UInt8], response: HTTPResponse)]

    init(key: String, flag: Flag, environment: String, version: Int) {
        self.key = key
        self.flag = flag
        func prepare(_ outcome: FlagEvaluationOutcome) -> (body: [UInt8], response: HTTPResponse) {
            var writer = OFREPJSONWriter()
            OFREPEvaluator.writeSuccess(key: key, value: outcome.value(of: flag), reason: outcome.reason,
                                        variant: outcome.variant, isFloat: flag.type == .number,
                                        environment: environment, version: version, into: &writer)
            return (writer.bytes, HTTPResponse.json(writer.bytes).encodingHead())
        }
        rules = flag.rules.indices.map { index in
            prepare(.rule(index, flag.rules[index].rollout == nil ? .targetingMatch : .split))
        }
        defaults = [EvaluationReason.staticValue, .defaultValue, .disabled].map { prepare(.defaultValue($0)) }
    }

    /// The prepared answer for `outcome`, or nil for one FlagKit cannot give (a rule's reason that
    /// does not match its rollout, a default with a rule's reason): the caller then writes it afresh.
    func answer(_ outcome: FlagEvaluationOutcome) -> (body: [UInt8], response: HTTPResponse)? {
        switch outcome {
        case .rule(let index, let reason):
            guard index >= 0, index < rules.count,
                  reason == (flag.rules[index].rollout == nil ? .targetingMatch : .split) else { return nil }
            return rules[index]
        case .defaultValue(.staticValue): return defaults[0]
        case .defaultValue(.defaultValue): return defaults[1]
        case .defaultValue(.disabled): return defaults[2]
        case .defaultValue: return nil
        }
    }
}
