import FlagKit
import FlagService
import FlagServiceTestSupport
import FlagStore
import Foundation
import Testing

/// PUT of one flag, rollback, racing writers, restart.
@Suite struct FlagServiceFlagsTests {
    @Test func bareValueKeepsTypeDescriptionAndRequiresAndDropsRules() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try await server.write("PUT", "/v1/environments/production/flags/premiumFeaturesLocked", json: "true")
        #expect(response.status == 200)
        let flag = try #require(try response.json()["flag"])
        #expect(flag["type"] == "boolean")
        #expect(flag["default"] == true)
        #expect(flag["rules"] == nil)
        #expect(flag["requires"] == ["monetizationEnabled": true])
        #expect(flag["description"]?.stringValue?.isEmpty == false)
        let served = try await server.get("/v1/environments/production/document").json()
        #expect(served["document"]?["flags"]?["premiumFeaturesLocked"] == flag)
    }

    @Test func bareValueOfTheWrongTypeIs422() async throws {
        let server = try TestServer()
        defer { server.stop() }
        for value in ["\"yes\"", "1", "null", "[true]"] {
            let response = try await server.write("PUT", "/v1/environments/production/flags/premiumFeaturesLocked", json: value)
            #expect(response.status == 422, "\(value)")
            #expect(try response.errorCode() == "type_mismatch")
            #expect(try response.json()["error"]?["details"]?.arrayValue?.first?["path"] == "/flags/premiumFeaturesLocked/default")
        }
        #expect(try server.store.currentVersion(environment: "production")?.number == 1)
    }

    @Test func bareValueForATypoIsRefusedAndPublishesNothing() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try await server.write("PUT", "/v1/environments/production/flags/premiumFeaturesLokced", json: "true")
        #expect(response.status == 422)
        let error = try #require(try response.json()["error"])
        #expect(error["code"] == "unknown_flag")
        #expect(error["key"] == "premiumFeaturesLokced")
        #expect(error["closest"]?.arrayValue?.first == "premiumFeaturesLocked")
        #expect(error["message"]?.stringValue?.contains("full definition") == true)
        #expect(try server.store.currentVersion(environment: "production")?.number == 1)
        let dryRun = try await server.write("PUT", "/v1/environments/production/flags/premiumFeaturesLokced?dryRun=true", json: "true")
        #expect(dryRun.status == 422)
    }

    @Test func newFlagNeedsAFullDefinition() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let cases: [(String, String)] = [("true", "boolean"), ("7", "integer"), ("2.5", "number"), ("\"hi\"", "string"),
                                         ("{\"a\": 1}", "json"), ("[1, 2]", "json")]
        for (index, (value, type)) in cases.enumerated() {
            let response = try await server.write("PUT", "/v1/environments/staging/flags/new\(index)",
                                                  json: #"{"type": "\#(type)", "default": \#(value)}"#)
            #expect(response.status == 200, "\(value)")
            #expect(try response.json()["flag"]?["type"]?.stringValue == type)
        }
        let invalidKey = try await server.write("PUT", "/v1/environments/staging/flags/bad%20key",
                                                json: #"{"type": "boolean", "default": true}"#)
        #expect(invalidKey.status == 422)
        #expect(try invalidKey.errorCode() == "invalid_document")
    }

    @Test func fullDefinitionReplacesTheFlag() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let definition = """
            {"type": "boolean", "default": false, "description": "gate",
             "rules": [{"cohort": "beta", "value": true, "rollout": 12.5}]}
            """
        let response = try await server.write("PUT", "/v1/environments/staging/flags/premiumFeaturesLocked", json: definition)
        #expect(response.status == 200)
        let flag = try #require(try response.json()["flag"])
        #expect(flag["rules"]?.arrayValue?.first?["rollout"] == 12.5)
        #expect(flag["requires"] == nil)
        let invalid = try await server.write("PUT", "/v1/environments/staging/flags/premiumFeaturesLocked",
                                       json: #"{"type": "boolean", "default": false, "rules": [{"cohort": "nobody", "value": true}]}"#)
        #expect(invalid.status == 422)
        #expect(try invalid.json()["error"]?["details"]?.arrayValue?.first?["path"]?.stringValue?
            .hasPrefix("/flags/premiumFeaturesLocked/rules/0") == true)
        let stale = try await server.write("PUT", "/v1/environments/staging/flags/premiumFeaturesLocked", json: "true",
                                     headers: [("If-Match", "\"1-0000000000000000\"")])
        #expect(stale.status == 412)
        let current = try await server.write("PUT", "/v1/environments/staging/flags/premiumFeaturesLocked", json: "true",
                                       headers: [("If-Match", try await server.etag("staging"))])
        #expect(current.status == 200)
    }

    @Test func rollbackPublishesAnOldVersionAsANewOne() async throws {
        let server = try TestServer()
        defer { server.stop() }
        _ = try await server.write("PUT", "/v1/environments/production/flags/monetizationEnabled", json: "false")
        let response = try await server.write("POST", "/v1/environments/production/rollback", json: #"{"version": 1, "message": "undo"}"#,
                                        message: nil)
        #expect(response.status == 200)
        let body = try response.json()
        #expect(body["version"] == 3)
        #expect(body["rolledBackFrom"] == 1)
        #expect(body["message"] == "undo")
        let v1 = try server.store.version(environment: "production", number: 1)
        #expect(body["contentHash"]?.stringValue == v1.contentHash)
        #expect(try await server.get("/v1/environments/production/document").json()["version"] == 3)
        let again = try await server.write("POST", "/v1/environments/production/rollback", json: #"{"version": 1, "message": "again"}"#)
        #expect(try again.json()["changed"] == false)
        #expect(try await server.write("POST", "/v1/environments/production/rollback", json: #"{"version": 9, "message": "m"}"#).status == 404)
        #expect(try await server.write("POST", "/v1/environments/production/rollback", json: #"{"version": 2}"#, message: nil).status == 400)
        #expect(try await server.write("POST", "/v1/environments/production/rollback", json: #"{"version": "2", "message": "m"}"#).status == 422)
        #expect(try await server.write("POST", "/v1/environments/production/rollback", json: #"[2]"#).status == 400)
        let stale = try await server.write("POST", "/v1/environments/production/rollback", json: #"{"version": 2, "message": "m"}"#,
                                     headers: [("If-Match", "\"1-0000000000000000\"")])
        #expect(stale.status == 412)
    }

    @Test func twoWritersRacingWithTheSameIfMatchExactlyOneWins() async throws {
        let server = try TestServer()
        defer { server.stop() }
        for round in 0..<5 {
            let etag = try await server.etag()
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for writer in 0..<6 {
                    group.addTask {
                        try await server.write("PUT", "/v1/environments/production/flags/introOfferMessage",
                                         json: "\"round \(round) writer \(writer)\"", headers: [("If-Match", etag)]).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1, "round \(round): \(statuses)")
            #expect(statuses.filter { $0 == 412 }.count == 5, "round \(round): \(statuses)")
        }
        #expect(try server.store.currentVersion(environment: "production")?.number == 6)
    }

    @Test func concurrentFlipsWithoutIfMatchAllLandInOrder() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let count = 24
        let versions = try await withThrowingTaskGroup(of: Int64?.self) { group in
            for index in 0..<count {
                group.addTask {
                    let response = try await server.write("PUT", "/v1/environments/staging/flags/counter\(index % 3)",
                                                          json: #"{"type": "integer", "default": \#(index)}"#)
                    return response.status == 200 ? try response.json()["version"]?.integerValue : nil
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(versions.compactMap { $0 }.sorted() == Array(2...Int64(count + 1)))
        let document = try await server.get("/v1/environments/staging/document").json()
        #expect(document["version"]?.integerValue == Int64(count + 1))
        // Every flip is in the final document (none was computed from a stale base).
        let history = try server.store.versions(environment: "staging", limit: 100)
        #expect(history.count == count + 1)
    }

    @Test func restartKeepsEveryVersion() async throws {
        let first = try TestServer()
        for value in ["false", "true", "false"] {
            #expect(try await first.write("PUT", "/v1/environments/production/flags/monetizationEnabled", json: value).status == 200)
        }
        let before = try await first.get("/v1/environments/production/versions").json()
        let etag = try await first.etag()
        first.stop(keepFiles: true)
        let second = try TestServer(directory: first.directory)
        defer { second.stop() }
        #expect(try await second.get("/v1/environments/production/versions").json() == before)
        #expect(try await second.etag() == etag)
        #expect(try await second.get("/v1/environments/production/document").json()["version"] == 4)
        #expect(try second.store.integrityCheck() == ["ok"])
    }
}
