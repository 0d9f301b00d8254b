import FlagKit
import FlagService
import FlagServiceTestSupport
import FlagStore
import Foundation
import HTTPServer
import TestSupport
import Testing

/// PUT of documents and flags, rollback, and every refusal, over real HTTP.
@Suite struct FlagServiceWritesTests {
    static let documentPath = "/v1/environments/production/document"

    @Test func documentNeedsIfMatchAndTheCurrentETag() async throws {
        let server = try TestServer()
        defer { server.stop() }
        var text = try TestServer.flagFile("production")
        text = text.replacingOccurrences(of: "\"default\": true", with: "\"default\": false")
        let missing = try await server.write("PUT", Self.documentPath, json: text)
        #expect(missing.status == 428)
        #expect(try missing.errorCode() == "precondition_required")
        let stale = try await server.write("PUT", Self.documentPath, json: text, headers: [("If-Match", "\"1-ffffffffffffffff\"")])
        #expect(stale.status == 412)
        let etag = try await server.etag()
        #expect(stale.header("ETag") == etag)
        // The same shape as the store's own conflict: the current version in the body too.
        #expect(try stale.json().objectValue?["error"]?.objectValue?["currentVersion"] == .integer(1))
        let weak = try await server.write("PUT", Self.documentPath, json: text, headers: [("If-Match", "W/\(etag)")])
        #expect(weak.status == 412, "If-Match uses strong comparison")

        // A browser sent the gzip body holds the gzip representation's tag: it names the same version.
        let gzipTag = try #require(try await server.get(Self.documentPath, headers: [("Accept-Encoding", "gzip")]).header("ETag"))
        #expect(gzipTag != etag)
        let published = try await server.write("PUT", Self.documentPath, json: text, headers: [("If-Match", gzipTag)])
        #expect(published.status == 200)
        let body = try published.json()
        #expect(body["changed"] == true)
        #expect(body["version"] == 2)
        #expect(body["author"] == "test-writer")
        let newTag = try #require(published.header("ETag"))
        // Acknowledged means served: the very next GET has the new version.
        let after = try await server.get(Self.documentPath)
        #expect(after.header("ETag") == newTag)
        #expect(try after.json()["version"] == 2)
        #expect(try await server.write("PUT", Self.documentPath, json: text, headers: [("If-Match", etag)]).status == 412)

        let same = try await server.write("PUT", Self.documentPath, json: text, headers: [("If-Match", newTag)])
        #expect(same.status == 200)
        #expect(try same.json()["changed"] == false)
        #expect(try same.json()["version"] == 2)
        #expect(try server.store.currentVersion(environment: "production")?.number == 2)
    }

    @Test func dryRunValidatesAndDiffsWithoutPublishing() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let text = try TestServer.flagFile("production")
            .replacingOccurrences(of: "\"monetizationEnabled\": {", with: "\"newFlag\": {\"type\": \"integer\", \"default\": 3}, \"monetizationEnabled\": {")
        let response = try await server.write("PUT", Self.documentPath + "?dryRun=true", json: text)
        #expect(response.status == 200)
        let body = try response.json()
        #expect(body["dryRun"] == true)
        #expect(body["changed"] == true)
        #expect(body["baseVersion"] == 1)
        #expect(body["diff"]?["flags"]?["added"]?["newFlag"]?["default"] == 3)
        #expect(try server.store.currentVersion(environment: "production")?.number == 1)
        let invalid = try await server.write("PUT", Self.documentPath + "?dryRun=true", json: #"{"flags": {"x": {"type": "boolean"}}}"#)
        #expect(invalid.status == 422)
        // A reader may look at what a change would do.
        #expect(try await server.write("PUT", Self.documentPath + "?dryRun=true", json: text, token: server.readerToken).status == 200)
    }

    @Test func invalidDocumentListsEveryIssueWithItsPath() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let etag = try await server.etag()
        let response = try await server.write("PUT", Self.documentPath, json: """
            {"flags": {"a": {"type": "boolean", "default": 1, "rules": [{"value": true, "rollout": 140}]},
                       "b": {"type": "string", "default": "x", "requires": {"zzz": true}}}}
            """, headers: [("If-Match", etag)])
        #expect(response.status == 422)
        let error = try #require(try response.json()["error"])
        #expect(error["code"] == "invalid_document")
        let paths = error["details"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []
        #expect(paths.contains("/flags/a/default"))
        #expect(paths.contains("/flags/a/rules/0/rollout"))
        #expect(paths.contains { $0.hasPrefix("/flags/b/requires") })
        #expect(error["details"]?.arrayValue?.allSatisfy { $0["message"]?.stringValue?.isEmpty == false } == true)
        #expect(try server.store.currentVersion(environment: "production")?.number == 1)
    }

    @Test func malformedJSONIs400WithLineAndColumn() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try await server.write("PUT", Self.documentPath, json: "{\n  \"flags\": {,}\n}", headers: [("If-Match", try await server.etag())])
        #expect(response.status == 400)
        let error = try #require(try response.json()["error"])
        #expect(error["code"] == "malformed_json")
        #expect(error["line"] == 2)
        #expect(error["column"] == 13)
        #expect(try await server.write("PUT", "/v1/environments/production/flags/x", json: "").status == 400)
    }

    @Test func everyRefusalHasItsStatus() async throws {
        let server = try TestServer(limits: {
            var limits = HTTPServerConfiguration.Limits()
            limits.maxBodyBytes = 20_000
            return limits
        }())
        defer { server.stop() }
        let flag = "/v1/environments/production/flags/monetizationEnabled"
        // 401 without a token, with a challenge; 401 with an unknown one; 403 for a reader.
        let anonymous = try await RawHTTP.request(port: server.port, method: "PUT", path: flag,
                                            headers: [("Content-Type", "application/json"), ("X-Change-Message", "m")],
                                            body: Array("true".utf8))
        #expect(anonymous.status == 401)
        #expect(anonymous.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        #expect(try await server.write("PUT", flag, json: "true", token: "sfl_unknown").status == 401)
        let basic = try await RawHTTP.request(port: server.port, method: "PUT", path: flag,
                                        headers: [("Authorization", "Basic dXNlcjpwYXNz")], body: Array("true".utf8))
        #expect(basic.status == 401)
        let reader = try await server.write("PUT", flag, json: "true", token: server.readerToken)
        #expect(reader.status == 403)
        #expect(try reader.errorCode() == "forbidden")
        // 415, 400 without a message, 413 past the server's limit, 405 with Allow, 404.
        #expect(try await server.write("PUT", flag, json: "true", contentType: "text/plain").status == 415)
        #expect(try await server.write("PUT", flag, json: "true", contentType: "application/x-www-form-urlencoded").status == 415)
        #expect(try await server.write("PUT", flag, json: "true", contentType: "application/merge-patch+json").status == 200)
        // Media types that are all separator or space: refused, and the server is still there (`;` once
        // split into nothing and crashed it).
        for odd in [";", " ; charset=utf-8", " ", "\t;"] {
            #expect(try await server.write("PUT", flag, json: "true", contentType: odd).status == 415, "\(odd)")
        }
        #expect(try await server.write("PUT", flag, json: "true", contentType: " application/json ; charset=utf-8").status == 200)
        #expect(try await server.write("PUT", flag, json: "true", message: "\u{00A0}\u{2003}").status == 400)
        let noMessage = try await server.write("PUT", flag, json: "false", message: nil)
        #expect(noMessage.status == 400)
        #expect(try noMessage.errorCode() == "message_required")
        #expect(try await server.write("PUT", flag, json: "false", message: "  ").status == 400)
        let big = try await server.write("PUT", Self.documentPath, json: String(repeating: " ", count: 50_000) + "{}",
                                   headers: [("If-Match", try await server.etag())])
        #expect(big.status == 413)
        let delete = try await RawHTTP.request(port: server.port, method: "DELETE", path: Self.documentPath)
        #expect(delete.status == 405)
        #expect(delete.header("Allow")?.contains("PUT") == true)
        #expect(try await RawHTTP.request(port: server.port, method: "POST", path: flag).status == 405)
        #expect(try await server.write("PUT", "/v1/environments/nope/flags/x", json: "true").status == 404)
        #expect(try await server.get("/v2/nothing").status == 404)
        #expect(try await server.write("PUT", Self.documentPath + "?dryRun=maybe", json: "{}").status == 400)
    }

    @Test func revokedTokenStopsWritingAtOnce() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let flag = "/v1/environments/production/flags/monetizationEnabled"
        #expect(try await server.write("PUT", flag, json: "false").status == 200)
        try server.store.revokeToken(name: "test-writer")
        #expect(try await server.write("PUT", flag, json: "true").status == 401)
        #expect(try await server.write("PUT", flag, json: "true", token: server.adminToken).status == 200)
    }

    @Test func messageHeaderIsPercentDecoded() async throws {
        let server = try TestServer()
        defer { server.stop() }
        _ = try await server.write("PUT", "/v1/environments/production/flags/monetizationEnabled", json: "false",
                             message: "Preis%C3%A4nderung vorbereitet")
        #expect(try server.store.currentVersion(environment: "production")?.message == "Preisänderung vorbereitet")
    }
}
