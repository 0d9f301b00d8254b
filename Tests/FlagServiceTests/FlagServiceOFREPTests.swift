import FlagKit
import FlagServiceTestSupport
import Foundation
import TestSupport
import Testing
@testable import FlagService

/// OFREP mounted on the real service: answers come from the live snapshots, a publish is visible to
/// the next evaluation, every environment is reachable by base path, and the service's read tokens and
/// rate limit apply.
@Suite struct FlagServiceOFREPTests {
    private func evaluate(_ server: TestServer, _ path: String, context: String, headers: [(String, String)] = []) async throws -> RawHTTPResponse {
        try await RawHTTP.request(port: server.port, method: "POST", path: path,
                            headers: [("Content-Type", "application/json")] + headers, body: Array(#"{"context": \#(context)}"#.utf8))
    }

    @Test func evaluatesFromTheCurrentSnapshotAndSeesAFlip() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let before = try await evaluate(server, "/ofrep/v1/evaluate/flags/premiumFeaturesLocked", context: #"{"targetingKey": "install-1"}"#)
        #expect(before.status == 200)
        let json = try before.json().objectValue
        #expect(json?["value"] == false)
        #expect(json?["key"] == "premiumFeaturesLocked")
        #expect(json?["metadata"]?.objectValue?["environment"] == "production")
        let version = json?["metadata"]?.objectValue?["version"]

        let flip = try await server.write("PUT", "/v1/environments/production/flags/premiumFeaturesLocked", json: "true")
        #expect(flip.status == 200)
        let after = try await evaluate(server, "/ofrep/v1/evaluate/flags/premiumFeaturesLocked", context: #"{"targetingKey": "install-1"}"#)
        #expect(try after.json().objectValue?["value"] == true)
        #expect(try after.json().objectValue?["metadata"]?.objectValue?["version"] != version)
    }

    @Test func everyEnvironmentByBasePathAndUnknownOnesAre404() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let staging = try await evaluate(server, "/v1/environments/staging/ofrep/v1/evaluate/flags", context: #"{"targetingKey": "a"}"#)
        #expect(staging.status == 200)
        let flags = try staging.json().objectValue?["flags"]?.arrayValue ?? []
        let document = try FlagDocument.decode(Array(try TestServer.flagFile("staging").utf8))
        #expect(flags.count == document.flags.count)
        let unknown = try await evaluate(server, "/v1/environments/nowhere/ofrep/v1/evaluate/flags", context: #"{"targetingKey": "a"}"#)
        #expect(unknown.status == 404)
        let missing = try await evaluate(server, "/ofrep/v1/evaluate/flags/noSuchFlag", context: #"{"targetingKey": "a"}"#)
        #expect(missing.status == 404)
        #expect(try missing.json().objectValue?["errorCode"] == "FLAG_NOT_FOUND")
    }

    @Test func sameAnswersAsFlagKitForManyInstalls() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let document = try FlagDocument.decode(Array(try TestServer.flagFile("production").utf8))
        for index in 0..<200 {
            let id = index == 0 ? "9F1C2D7E-0000-4000-8000-000000000001" : "install-\(index)"
            let locale = index % 3 == 0 ? "en-US" : "de-DE"
            let response = try await evaluate(server, "/ofrep/v1/evaluate/flags",
                                        context: #"{"targetingKey": "\#(id)", "locale": "\#(locale)"}"#)
            let flags = try response.json().objectValue?["flags"]?.arrayValue ?? []
            let context = EvaluationContext(installId: id, locale: locale)
            for flag in flags {
                let key = flag.objectValue?["key"]?.stringValue ?? ""
                #expect(flag.objectValue?["value"] == document.evaluate(key, context: context).value, "\(key) for \(id)")
            }
        }
    }

    @Test func readTokensAndRateLimitApply() async throws {
        var options = FlagService.Options(requireReadToken: true)
        // One token per 20 s after a burst of 3: six requests cannot outlast it, even on a machine so loaded that
        // each takes a second (at 1/s they did, and no request was limited).
        options.ofrep = FlagService.OFREPOptions(rateLimit: 0.05, rateBurst: 3)
        let server = try TestServer(options: options)
        defer { server.stop() }
        let path = "/ofrep/v1/evaluate/flags/monetizationEnabled"
        #expect(try await evaluate(server, path, context: #"{"targetingKey": "a"}"#).status == 401)
        #expect(try await evaluate(server, path, context: #"{"targetingKey": "a"}"#, headers: [("Authorization", "Bearer sfl_wrong")]).status == 401)
        let bearer = [("Authorization", "Bearer \(server.readerToken)")]
        var responses: [RawHTTPResponse] = []
        for _ in 0..<6 { responses.append(try await evaluate(server, path, context: #"{"targetingKey": "a"}"#, headers: bearer)) }
        let statuses = responses.map(\.status)
        #expect(statuses.prefix(3).allSatisfy { $0 == 200 }, "\(statuses)")
        let limited = try #require(responses.first { $0.status == 429 }, "\(statuses)")
        #expect(limited.header("Retry-After") != nil)
    }

    /// A token scoped to staging reads staging, by OFREP and by the API, and gets 403 for production: the
    /// OFREP grant and the routes' middleware apply the same scope.
    @Test func aScopedReaderReadsOnlyItsEnvironments() async throws {
        let server = try TestServer(options: FlagService.Options(requireReadToken: true))
        defer { server.stop() }
        let scoped = try server.token("staging-reader", .reader, environments: ["staging"])
        let bearer = [("Authorization", "Bearer \(scoped)")]
        let staging = "/v1/environments/staging/ofrep/v1/evaluate/flags/monetizationEnabled"
        #expect(try await evaluate(server, staging, context: #"{"targetingKey": "a"}"#, headers: bearer).status == 200)
        let production = try await evaluate(server, "/ofrep/v1/evaluate/flags/monetizationEnabled", context: #"{"targetingKey": "a"}"#,
                                            headers: bearer)
        #expect(production.status == 403)
        #expect(try await server.get("/v1/environments/staging/document", headers: bearer).status == 200)
        let document = try await server.get("/v1/environments/production/document", headers: bearer)
        #expect(document.status == 403)
        #expect(try document.errorCode() == "environment_not_allowed")
    }

    @Test func failedOFREPAuthenticationIsLoggedAndThrottledLikeTheAPIs() async throws {
        var options = FlagService.Options(requireReadToken: true)
        options.authFailureLimit = 2
        let server = try TestServer(options: options)
        defer { server.stop() }
        let path = "/ofrep/v1/evaluate/flags/monetizationEnabled"
        for token in ["sfl_guess1", "sfl_guess2"] {
            let response = try await evaluate(server, path, context: #"{"targetingKey": "a"}"#, headers: [("X-API-Key", token)])
            #expect(response.status == 401)
        }
        let failures = server.logLines.all.filter { $0.contains("event=auth_failed") && $0.contains("path=\(path)") }
        #expect(failures.count == 2)
        #expect(!failures.contains { $0.contains("sfl_guess") })
        // Past the limit a failure gets 429; the valid token from the same address is still served.
        let throttled = try await evaluate(server, path, context: #"{"targetingKey": "a"}"#, headers: [("X-API-Key", "sfl_guess3")])
        #expect(throttled.status == 429)
        #expect(try throttled.errorCode() == "too_many_failed_authentications")
        #expect(throttled.header("Retry-After") != nil)
        let served = try await evaluate(server, path, context: #"{"targetingKey": "a"}"#,
                                        headers: [("Authorization", "Bearer \(server.readerToken)")])
        #expect(served.status == 200)
    }
}

