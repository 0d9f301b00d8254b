import Foundation
import FlagKit
import HTTPServer
import Testing
@testable import FlagOFREP

@Suite struct OFREPEvaluatorTests {
    func single(_ key: String, _ context: JSONValue, _ snapshot: OFREPSnapshot) -> HTTPResponse {
        OFREPEvaluator.evaluateFlag(key: key, body: body(context), snapshot: snapshot)
    }

    /// An install id whose bucket for `salt` is inside (or outside) `percent`.
    func installId(salt: String, inside: Bool, percent: Int) -> String {
        (0..<10_000).lazy.map { "install-\($0)" }
            .first { (Bucketing.bucket(salt: salt, unit: $0) < percent * 1000) == inside } ?? "none"
    }

    @Test func singleFlagSuccessHasEveryField() throws {
        let response = single("greeting", englishContext(), try Fixtures.allTypes())
        #expect(response.status.code == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(String(decoding: response.body, as: UTF8.self)
            == #"{"key":"greeting","value":"Hello","reason":"TARGETING_MATCH","variant":"rule-0","metadata":{"environment":"test","version":12}}"#)
    }

    @Test func everyTypeKeepsItsJSONType() throws {
        let snapshot = try Fixtures.allTypes()
        let beta: JSONValue = ["targetingKey": "x", "channel": "testflight", "appVersion": "2.5.0"]
        #expect(try json(single("enabledBool", englishContext(), snapshot)).objectValue?["value"] == .bool(true))
        #expect(try json(single("maxItems", beta, snapshot)).objectValue?["value"] == .integer(20))
        #expect(try json(single("theme", beta, snapshot)).objectValue?["value"] == ["color": "green", "size": 4])
        #expect(try json(single("productIds", beta, snapshot)).objectValue?["value"] == ["monthly", "yearly"])
        #expect(try json(single("theme", englishContext(), snapshot)).objectValue?["value"]
            == ["color": "blue", "size": 3, "scale": 1.5, "flags": [true, nil], "nested": ["a": [:]]])
        // A float flag's integral value keeps its decimal point on the wire.
        let ratio = String(decoding: single("ratio", englishContext(), snapshot).body, as: UTF8.self)
        #expect(ratio.contains(#""value":2.0,"#))
        #expect(String(decoding: single("ratio", beta, snapshot).body, as: UTF8.self).contains(#""value":0.5,"#))
    }

    @Test func reasonsAreOpenFeatures() throws {
        let snapshot = try Fixtures.allTypes()
        func reason(_ key: String, _ context: JSONValue) throws -> JSONValue? { try json(single(key, context, snapshot)).objectValue?["reason"] }
        #expect(try reason("staticString", [:]) == "STATIC")
        #expect(try reason("greeting", ["locale": "de-DE"]) == "DEFAULT")
        #expect(try reason("greeting", englishContext()) == "TARGETING_MATCH")
        #expect(try reason("disabledFlag", [:]) == "DISABLED")
        let inside = installId(salt: "rolloutBool", inside: true, percent: 50)
        #expect(try reason("rolloutBool", ["targetingKey": .string(inside), "locale": "en"]) == "SPLIT")
    }

    @Test func unknownFlagIs404FlagNotFound() throws {
        let response = single("nope", englishContext(), try Fixtures.allTypes())
        #expect(response.status.code == 404)
        let object = try #require(try json(response).objectValue)
        #expect(object["key"] == "nope")
        #expect(object["errorCode"] == "FLAG_NOT_FOUND")
        #expect(object["errorDetails"]?.stringValue?.contains("nope") == true)
    }

    @Test func badBodiesAre400WithTheirCode() throws {
        let snapshot = try Fixtures.allTypes()
        let cases: [(String, String)] = [
            ("{", "PARSE_ERROR"), ("", "PARSE_ERROR"), ("{}", "INVALID_CONTEXT"),
            (#"{"context":{"targetingKey":1}}"#, "INVALID_CONTEXT"),
        ]
        for (text, code) in cases {
            let response = OFREPEvaluator.evaluateFlag(key: "greeting", body: Array(text.utf8), snapshot: snapshot)
            #expect(response.status.code == 400, "\(text)")
            let object = try #require(try json(response).objectValue)
            #expect(object["key"] == "greeting")
            #expect(object["errorCode"] == .string(code), "\(text)")
            #expect(object["errorDetails"]?.stringValue?.isEmpty == false)
        }
    }

    @Test func targetingKeyIsRequiredOnlyWhereARolloutIsReached() throws {
        let snapshot = try Fixtures.allTypes()
        // English contexts reach rolloutBool's rollout: without a key, the answer is unknown.
        let missing = single("rolloutBool", ["locale": "en-US"], snapshot)
        #expect(missing.status.code == 400)
        #expect(try json(missing).objectValue?["errorCode"] == "TARGETING_KEY_MISSING")
        // German contexts never reach it: answered without a key.
        #expect(single("rolloutBool", ["locale": "de-DE"], snapshot).status.code == 200)
        // A prerequisite's rollout counts too.
        #expect(try json(single("gatedByRollout", ["locale": "en-US"], snapshot)).objectValue?["errorCode"] == "TARGETING_KEY_MISSING")
        // A rule before the rollout decides first (internal cohort needs installId, so without one the rollout is reached).
        #expect(single("rolloutForAll", [:], snapshot).status.code == 400)
        #expect(single("staticString", [:], snapshot).status.code == 200)
        #expect(single("greeting", ["locale": "en"], snapshot).status.code == 200)
    }

    @Test func answersEqualFlagKitForManyInstalls() throws {
        let snapshot = try Fixtures.allTypes()
        for index in 0..<300 {
            let attributes: [String: JSONValue] = [
                "targetingKey": .string("install-\(index)"), "locale": index % 2 == 0 ? "en-GB" : "de-DE",
                "channel": index % 3 == 0 ? "testflight" : "appstore", "appVersion": "2.4.1",
            ]
            for key in snapshot.sortedFlagKeys {
                let expected = snapshot.document.evaluate(key, context: EvaluationContext(attributes: attributes))
                let object = try #require(try json(single(key, .object(attributes), snapshot)).objectValue)
                #expect(object["value"] == expected.value, "\(key) install-\(index)")
                #expect(object["variant"] == .string(expected.variant))
                #expect(object["reason"] == .string(expected.reason.rawValue))
            }
        }
    }

    @Test func bulkListsEveryFlagInKeyOrderWithMetadataAndETag() throws {
        let snapshot = try Fixtures.allTypes()
        let response = OFREPEvaluator.evaluateAll(body: body(englishContext()), snapshot: snapshot)
        #expect(response.status.code == 200)
        let etag = try #require(response.headers["ETag"])
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count == 34)
        let object = try #require(try json(response).objectValue)
        let flags = try #require(object["flags"]?.arrayValue)
        #expect(flags.compactMap { $0.objectValue?["key"]?.stringValue } == snapshot.sortedFlagKeys)
        #expect(object["metadata"] == ["environment": "test", "version": 12])
    }

    @Test func bulkReportsPerFlagFailuresInline() throws {
        let snapshot = try Fixtures.allTypes()
        let response = OFREPEvaluator.evaluateAll(body: body(["locale": "en-US"]), snapshot: snapshot)
        #expect(response.status.code == 200)
        let flags = try #require(try json(response).objectValue?["flags"]?.arrayValue).compactMap(\.objectValue)
        let failed = flags.filter { $0["errorCode"] != nil }.compactMap { $0["key"]?.stringValue }
        #expect(failed == ["gatedByRollout", "rolloutBool", "rolloutForAll"])
        #expect(flags.first { $0["key"] == "greeting" }?["value"] == "Hello")
    }

    @Test func bulkRefusesBadBodiesWithoutKey() throws {
        let response = OFREPEvaluator.evaluateAll(body: Array("nope".utf8), snapshot: try Fixtures.allTypes())
        #expect(response.status.code == 400)
        let object = try #require(try json(response).objectValue)
        #expect(object["errorCode"] == "PARSE_ERROR")
        #expect(object["key"] == nil)
        #expect(response.headers["ETag"] == nil)
    }

    @Test func ifNoneMatchGives304WithTheSameETag() throws {
        let snapshot = try Fixtures.allTypes()
        let first = OFREPEvaluator.evaluateAll(body: body(englishContext()), snapshot: snapshot)
        let etag = try #require(first.headers["ETag"])
        let again = OFREPEvaluator.evaluateAll(body: body(englishContext()), ifNoneMatch: [etag], snapshot: snapshot)
        #expect(again.status.code == 304)
        #expect(again.body.isEmpty)
        #expect(again.headers["ETag"] == etag)
        let stale = OFREPEvaluator.evaluateAll(body: body(englishContext()), ifNoneMatch: ["\"other\""], snapshot: snapshot)
        #expect(stale.status.code == 200)
    }

    @Test func etagChangesWithContextVersionEnvironmentAndContent() throws {
        let snapshot = try Fixtures.allTypes()
        let context = (englishContext()).canonicalBytes
        let base = OFREPEvaluator.etag(snapshot: snapshot, canonicalContext: context)
        #expect(base == OFREPEvaluator.etag(snapshot: snapshot, canonicalContext: context))
        #expect(base != OFREPEvaluator.etag(snapshot: snapshot, canonicalContext: englishContext("other").canonicalBytes))
        let newer = OFREPSnapshot(document: snapshot.document, version: 13, environment: "test")
        #expect(base != OFREPEvaluator.etag(snapshot: newer, canonicalContext: context))
        let elsewhere = OFREPSnapshot(document: snapshot.document, version: 12, environment: "staging")
        #expect(base != OFREPEvaluator.etag(snapshot: elsewhere, canonicalContext: context))
        let production = OFREPSnapshot(document: try Fixtures.document("flags/production.json"), version: 12, environment: "test")
        #expect(base != OFREPEvaluator.etag(snapshot: production, canonicalContext: context))
    }

    @Test func productionDocumentServesSymisFlags() throws {
        let snapshot = try Fixtures.production()
        let tester: JSONValue = ["targetingKey": "9F1C2D7E-0000-4000-8000-000000000001"]
        #expect(try json(single("premiumFeaturesLocked", tester, snapshot)).objectValue?["value"] == true)
        #expect(try json(single("premiumFeaturesLocked", ["targetingKey": "someone"], snapshot)).objectValue?["value"] == false)
        // No rollouts in production: every flag answers without a targeting key.
        let bulk = OFREPEvaluator.evaluateAll(body: body([:]), snapshot: snapshot)
        let flags = try #require(try json(bulk).objectValue?["flags"]?.arrayValue)
        #expect(flags.count == snapshot.document.flags.count)
        #expect(flags.allSatisfy { $0.objectValue?["errorCode"] == nil })
    }

    /// OFREP agrees with docs/evaluation-vectors.json, single and bulk, through both body parsers (the vectors'
    /// contexts are plain, so the scanner takes them): every case's value, variant and reason, and
    /// 400 INVALID_CONTEXT naming /context/firstInstallDate exactly for the cases marked invalidContext.
    @Test func agreesWithTheEvaluationVectors() throws {
        let root = try JSONParser.parse(Array(try Data(contentsOf: Fixtures.root.appendingPathComponent("docs/evaluation-vectors.json")))).value
        let document = try FlagDocument.decode(try #require(root.objectValue?["document"]).canonicalBytes)
        let snapshot = OFREPSnapshot(document: document, version: 1, environment: "vectors")
        let cases = root.objectValue?["cases"]?.arrayValue ?? []
        #expect(cases.count >= 30)
        for vector in cases {
            let members = vector.objectValue ?? [:]
            let key = try #require(members["flag"]?.stringValue)
            let context = try #require(members["context"])
            let note = members["note"]?.stringValue ?? ""
            let response = single(key, context, snapshot)
            let answer = try json(response).objectValue ?? [:]
            let bulk = OFREPEvaluator.evaluateAll(body: body(context), snapshot: snapshot)
            if members["invalidContext"] == true {
                #expect(response.status.code == 400 && answer["errorCode"] == "INVALID_CONTEXT", "\(note)")
                #expect(answer["errorDetails"]?.stringValue?.hasPrefix("/context/firstInstallDate must be") == true, "\(note): \(answer)")
                #expect(bulk.status.code == 400, "\(note)")
                continue
            }
            #expect(response.status.code == 200, "\(note): \(answer)")
            #expect(answer["value"] == members["value"] && answer["variant"] == members["variant"] && answer["reason"] == members["reason"],
                    "\(note): \(answer)")
            let flags = try json(bulk).objectValue?["flags"]?.arrayValue ?? []
            let entry = flags.first { $0.objectValue?["key"]?.stringValue == key }?.objectValue ?? [:]
            #expect(entry["value"] == members["value"] && entry["variant"] == members["variant"], "bulk: \(note)")
        }
    }
}
