import FlagKit
import HTTPServer
import Testing
@testable import FlagOFREP

/// The prepared answers against the answers written afresh from FlagKit's `evaluate` (the path the
/// evaluator took before answers were prepared), byte for byte.
@Suite struct OFREPFlagAnswersTests {
    /// What `evaluateFlag` answered before: general parse, `evaluate`, then the writer.
    func reference(key: String, body: [UInt8], snapshot: OFREPSnapshot) -> Result<[UInt8], OFREPFailure> {
        OFREPRequest.parse(body)
            .flatMap { OFREPEvaluator.evaluate(key: key, context: $0.context, snapshot: snapshot) }
            .map { result in
                var writer = OFREPJSONWriter()
                OFREPEvaluator.writeSuccess(key: result.key, value: result.value, reason: result.reason, variant: result.variant,
                                            isFloat: snapshot.document.flags[key]?.type == .number,
                                            environment: snapshot.environment, version: snapshot.version, into: &writer)
                return writer.bytes
            }
    }

    func expectSame(key: String, body: [UInt8], snapshot: OFREPSnapshot) throws {
        let response = OFREPEvaluator.evaluateFlag(key: key, body: body, snapshot: snapshot)
        let text = String(decoding: body, as: UTF8.self)
        #expect(response.headers.count == 1 && response.headers["Content-Type"] == "application/json", "\(text)")
        switch reference(key: key, body: body, snapshot: snapshot) {
        case .success(let bytes):
            #expect(response.status.code == 200, "\(key) \(text)")
            #expect(response.body == bytes, "\(key) \(text)")
        case .failure(let failure):
            #expect(response.status.code == failure.status, "\(key) \(text)")
            let object = try #require(try json(response).objectValue)
            #expect(object["key"] == .string(key))
            #expect(object["errorCode"] == .string(failure.code.rawValue), "\(key) \(text)")
            #expect(object["errorDetails"] == .string(failure.details), "\(key) \(text)")
        }
    }

    @Test func everyPreparedOutcomeIsTheWrittenOne() throws {
        for snapshot in [try Fixtures.allTypes(), try Fixtures.production()] {
            for (key, answers) in snapshot.answers {
                let flag = try #require(snapshot.document.flags[key])
                var outcomes: [FlagEvaluationOutcome] = [.defaultValue(.staticValue), .defaultValue(.defaultValue), .defaultValue(.disabled)]
                outcomes += flag.rules.indices.map { .rule($0, flag.rules[$0].rollout == nil ? .targetingMatch : .split) }
                for outcome in outcomes {
                    let prepared = try #require(answers.answer(outcome))
                    var writer = OFREPJSONWriter()
                    OFREPEvaluator.writeSuccess(key: key, value: outcome.value(of: flag), reason: outcome.reason,
                                                variant: outcome.variant, isFloat: flag.type == .number,
                                                environment: snapshot.environment, version: snapshot.version, into: &writer)
                    #expect(prepared.body == writer.bytes)
                    #expect(prepared.response.body == writer.bytes && prepared.response.status.code == 200)
                }
                // Outcomes FlagKit does not give are not served from the table.
                #expect(answers.answer(.defaultValue(.targetingMatch)) == nil)
                #expect(answers.answer(.rule(flag.rules.count, .split)) == nil)
            }
            #expect(snapshot.sortedAnswers.map(\.key) == snapshot.sortedFlagKeys)
        }
    }

    /// Generated bodies (accepted by the scanner, refused, or left to the general parser) against
    /// every flag and a missing one: the same status, bytes, error code and details as before.
    @Test func singleFlagAnswersEqualTheWrittenOnes() throws {
        var generator = SystemRandomNumberGenerator()
        for snapshot in [try Fixtures.allTypes(), try Fixtures.production()] {
            let keys = snapshot.sortedFlagKeys + ["missing"]
            for _ in 0..<3_000 {
                let body = GeneratedBody.make(using: &generator)
                try expectSame(key: keys.randomElement(using: &generator) ?? "missing", body: body, snapshot: snapshot)
            }
            for key in keys {
                for index in 0..<100 {
                    let context: JSONValue = [
                        "targetingKey": index % 9 == 0 ? "" : .string("install-\(index)"),
                        "locale": index % 2 == 0 ? "en-GB" : "de-DE", "channel": index % 3 == 0 ? "testflight" : "appstore",
                        "appVersion": index % 4 == 0 ? "2.3.0" : "2.4.1",
                    ]
                    try expectSame(key: key, body: body(context), snapshot: snapshot)
                }
            }
        }
    }

    /// The bulk body is the prepared items joined: the same bytes as items written one by one.
    @Test func bulkItemsEqualTheWrittenOnes() throws {
        let snapshot = try Fixtures.allTypes()
        for index in 0..<50 {
            let context: JSONValue = ["locale": "en-GB", "channel": index % 2 == 0 ? "testflight" : "appstore",
                                      "appVersion": "2.4.1", "targetingKey": index % 5 == 0 ? "" : .string("install-\(index)")]
            let response = OFREPEvaluator.evaluateAll(body: body(context), snapshot: snapshot)
            let items = try #require(try json(response).objectValue?["flags"]?.arrayValue)
            #expect(items.count == snapshot.sortedFlagKeys.count)
            for (key, item) in zip(snapshot.sortedFlagKeys, items) {
                switch reference(key: key, body: body(context), snapshot: snapshot) {
                case .success(let bytes): #expect(item.canonicalBytes == (try JSONParser.parse(bytes).value.canonicalBytes))
                case .failure(let failure): #expect(item.objectValue?["errorCode"] == .string(failure.code.rawValue))
                }
            }
            #expect(String(decoding: response.body, as: UTF8.self).hasPrefix(#"{"flags":[{"key":""#))
        }
    }
}
