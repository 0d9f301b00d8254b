import FlagKit
import FlagService
import FlagServiceTestSupport
import Foundation
import TestSupport
import Testing

/// `POST /v1/environments/{env}/preview` over real HTTP: the diff and impact flagctl prints, computed
/// by the same FlagKit code, and nothing published.
@Suite struct FlagServicePreviewTests {
    static let path = "/v1/environments/production/preview"

    @Test func aFlagValueIsPreviewedWithFlagctlsDiffAndImpactAndNotPublished() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try await server.write("POST", Self.path, json: #"{"flag": "premiumFeaturesLocked", "value": true}"#, message: nil)
        #expect(response.status == 200, "\(response.text)")
        let body = try response.json()
        #expect(body["changed"] == true)
        #expect(body["baseVersion"] == 1)
        #expect(body["baseEtag"] == .string(try await server.etag()))
        let lines = body["lines"]?.arrayValue?.compactMap { $0["text"]?.stringValue } ?? []
        #expect(lines.first == "~ flag premiumFeaturesLocked")
        #expect(body["lines"]?.arrayValue?.first?["kind"] == "changed")

        // The same numbers as flagctl diff --impact: its sample (100,000, default seed) through FlagKit.
        let old = try #require(server.service.snapshots.snapshot("production")?.document)
        let new = try FlagEdit.value(true).apply(to: old, key: "premiumFeaturesLocked")
        let expectedDiff = DocumentDiff(from: old, to: new)
        #expect(lines == expectedDiff.lines.map(\.text))
        let sample = ImpactSample.generate(count: 100_000, seed: ImpactSample.defaultSeed, pools: ImpactSample.pools(for: [old, new]))
        let report = ImpactAnalysis.measure(from: old, to: new, sample: sample)
        let impact = try #require(body["impact"])
        #expect(impact["sampleSize"] == 100_000)
        #expect(impact["seed"] == .integer(Int64(ImpactSample.defaultSeed)))
        #expect(impact["lines"]?.arrayValue?.compactMap(\.stringValue) == report.lines)
        let locked = try #require(report.flags.first { $0.key == "premiumFeaturesLocked" })
        #expect(locked.changed > 0)
        #expect(impact["flags"]?["premiumFeaturesLocked"]?["changed"] == .integer(Int64(locked.changed)))

        #expect(try server.store.currentVersion(environment: "production")?.number == 1, "a preview publishes nothing")
    }

    /// The paid day's early-user rule previewed as a whole document: the sampled installs carry install dates
    /// (ImpactSample, shared with flagctl), so the console shows the numbers `flagctl diff --impact` prints, and
    /// only installs known to be late are locked.
    @Test func theEarlyUserRuleIsPreviewedWithSampledInstallDates() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let old = try #require(server.service.snapshots.snapshot("production")?.document)
        let rule = try Data(contentsOf: repositoryRoot.appendingPathComponent("Tests/FlagKitTests/Fixtures/early-user-rule.changes.json"))
        let newJSON = try ChangeSet.decode(Array(rule)).apply(to: old).jsonValue
        let response = try await server.write("POST", Self.path, json: (["document": newJSON] as JSONValue).canonicalString, message: nil)
        #expect(response.status == 200, "\(response.text)")
        let new = try FlagDocument.decode(newJSON.canonicalBytes)
        let sample = ImpactSample.generate(count: 100_000, seed: ImpactSample.defaultSeed, pools: ImpactSample.pools(for: [old, new]))
        let locked = sample.filter { new.evaluate("premiumFeaturesLocked", context: $0).value == true }
        #expect(locked.allSatisfy { ($0.firstInstallMilliseconds ?? 0) > 1_803_859_200_000 })
        #expect(sample.filter { $0.firstInstallDate == nil }.count > 4_000, "about 5 % of the sample has no date")
        let impact = try #require(try response.json()["impact"])
        #expect(impact["flags"]?["premiumFeaturesLocked"]?["changed"] == .integer(Int64(locked.count)))
        #expect(impact["lines"]?.arrayValue?.compactMap(\.stringValue) == ImpactAnalysis.measure(from: old, to: new, sample: sample).lines)
    }

    @Test func aTypeMismatchIsRefusedAtItsDocumentPath() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try await server.write("POST", Self.path, json: #"{"flag": "monetizationEnabled", "value": "yes"}"#, message: nil)
        #expect(response.status == 422)
        #expect(try response.errorCode() == "type_mismatch")
        #expect(try response.json()["error"]?["details"]?.arrayValue?.first?["path"] == "/flags/monetizationEnabled/default")
    }

    @Test func anInvalidDefinitionListsItsPaths() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let definition = #"{"type": "boolean", "default": false, "rules": [{"cohort": "beta", "value": true, "rollout": 140}]}"#
        let response = try await server.write("POST", Self.path, json: #"{"flag": "premiumFeaturesLocked", "definition": \#(definition)}"#, message: nil)
        #expect(response.status == 422)
        let paths = try response.json()["error"]?["details"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []
        #expect(paths.contains("/flags/premiumFeaturesLocked/rules/0/rollout"), "\(paths)")
    }

    @Test func aWholeDocumentAgainstAnEarlierVersionWithoutImpact() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let current = try TestServer.flagFile("production")
        let response = try await server.write("POST", Self.path, json: #"{"document": \#(current), "base": 0, "impact": false}"#, message: nil)
        #expect(response.status == 200, "\(response.text)")
        let body = try response.json()
        #expect(body["baseVersion"] == 0)
        #expect(body["baseEtag"] == .null)
        #expect(body["impact"] == .null)
        #expect(body["lines"]?.arrayValue?.first?["kind"] == "added")
        let same = try await server.write("POST", Self.path, json: #"{"document": \#(current), "base": 1}"#, message: nil)
        #expect(try same.json()["changed"] == false)
        #expect(try same.json()["lines"] == .array([]))
        let missing = try await server.write("POST", Self.path, json: #"{"document": \#(current), "base": 9}"#, message: nil)
        #expect(missing.status == 404)
        #expect(try missing.errorCode() == "version_not_found")
    }

    @Test func aReaderMayPreviewButNobodyWithoutAToken() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let body = #"{"flag": "monetizationEnabled", "value": false, "sample": 1000}"#
        let reader = try await server.write("POST", Self.path, json: body, token: server.readerToken, message: nil)
        #expect(reader.status == 200)
        #expect(try reader.json()["impact"]?["sampleSize"] == 1000)
        let anonymous = try await RawHTTP.request(port: server.port, method: "POST", path: Self.path,
                                                  headers: [("Content-Type", "application/json")], body: Array(body.utf8))
        #expect(anonymous.status == 401)
        let wrong = try await server.write("POST", Self.path, json: body, token: "sfl_wrong", message: nil)
        #expect(wrong.status == 401)
        let unknown = try await server.write("POST", "/v1/environments/nowhere/preview", json: body, message: nil)
        #expect(unknown.status == 404)
        #expect(try unknown.errorCode() == "unknown_environment")
    }

    @Test(arguments: [
        (#"[1]"#, 400, "invalid_body"),
        (#"{"flag": "a"}"#, 422, "invalid_body"),
        (#"{"flag": "a", "value": 1, "document": {"flags": {}}}"#, 422, "invalid_body"),
        (#"{"value": 1}"#, 422, "invalid_body"),
        (#"{"flag": "monetizationEnabled", "value": true, "sample": 100001}"#, 422, "invalid_body"),
        (#"{"document": {"flags": {"a": {"type": "boolean", "default": 1}}}}"#, 422, "invalid_document"),
        (#"{"flag": "a", "#, 400, "malformed_json"),
    ])
    func refusals(body: String, status: Int, code: String) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try await server.write("POST", Self.path, json: body, message: nil)
        #expect(response.status == status, "\(body): \(response.text)")
        #expect(try response.errorCode() == code)
    }
}
