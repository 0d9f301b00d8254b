import FlagKit
import FlagServiceTestSupport
import FlagStore
import Foundation
import Testing
@testable import FlagService

/// `POST`/`GET .../schedules`, `GET .../requests`, and what protected writes answer, over real HTTP.
@Suite struct FlagServiceSchedulesTests {
    static let schedules = "/v1/environments/production/schedules"

    static func at(_ offset: Int64) -> String { RFC3339.string(milliseconds: ChangeScheduler.wallClock() + offset) }

    @Test func aScheduleIsCreatedListedAndPublishedAtItsTime() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let etag = try await server.etag()
        let due = ChangeScheduler.wallClock() + 4_000
        let body = #"{"at": "\#(RFC3339.string(milliseconds: due))", "message": "the free intro period is over", "flags": {"showIntroFreeSubscriptionBanner": false}}"#
        let created = try await server.write("POST", Self.schedules, json: body, message: nil, headers: [("If-Match", etag)])
        #expect(created.status == 201, "\(created.text)")
        let change = try #require(try created.json()["change"])
        let id = try #require(change["id"]?.integerValue)
        #expect(created.header("Location") == "/v1/changes/\(id)")
        #expect(change["status"] == "scheduled")
        #expect(change["baseVersion"] == 1)
        #expect(change["message"] == "the free intro period is over")
        #expect(try created.json()["lines"]?.arrayValue?.first?["text"] == "~ flag showIntroFreeSubscriptionBanner")
        // Listed while scheduled: on a loaded machine the scheduler may already have applied it when the list
        // answers, so the filtered list is checked only when it answered before the due instant; listed with
        // both statuses it is there either way.
        let listed = try await server.get(Self.schedules + "?status=scheduled")
        if ChangeScheduler.wallClock() < due {
            #expect(try listed.json()["changes"]?.arrayValue?.map { $0["id"] } == [.integer(id)])
        }
        let either = try await server.get(Self.schedules + "?status=scheduled,applied")
        #expect(try either.json()["changes"]?.arrayValue?.map { $0["id"] } == [.integer(id)])
        // Published by the scheduler at its time, with the schedule's author and message.
        var document = try await server.get("/v1/environments/production/document").json()
        let deadline = Date().addingTimeInterval(10)
        while document["version"] == 1, Date() < deadline {
            usleep(50_000)
            document = try await server.get("/v1/environments/production/document").json()
        }
        #expect(document["version"] == 2)
        #expect(document["author"] == "test-writer")
        #expect(document["message"] == "the free intro period is over")
        let done = try await server.get("/v1/changes/\(id)").json()["change"]
        #expect(done?["status"] == "applied")
        #expect(done?["appliedVersion"] == 2)
        // Never before its time (checked on the instant it ran, not on how fast this test got here).
        let appliedAt = try RFC3339.milliseconds(parsing: try #require(done?["appliedAt"]?.stringValue))
        #expect(appliedAt >= due, "applied at \(appliedAt), due \(due)")
    }

    @Test func refusalsOfASchedule() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let past = #"{"at": "2020-01-01T00:00:00Z", "message": "m", "flags": {"showIntroFreeSubscriptionBanner": false}}"#
        #expect(try await server.write("POST", Self.schedules, json: past).errorCode() == "invalid_body")
        let same = #"{"at": "\#(Self.at(60_000))", "message": "m", "flags": {"showIntroFreeSubscriptionBanner": true}}"#
        let empty = try await server.write("POST", Self.schedules, json: same)
        #expect(empty.status == 409)
        #expect(try empty.errorCode() == "empty_change")
        let typo = #"{"at": "\#(Self.at(60_000))", "message": "m", "flags": {"showIntroFreeSubscriptionBanne": false}}"#
        #expect(try await server.write("POST", Self.schedules, json: typo).errorCode() == "unknown_flag")
        let valid = #"{"at": "\#(Self.at(60_000))", "flags": {"showIntroFreeSubscriptionBanner": false}}"#
        #expect(try await server.write("POST", Self.schedules, json: valid, message: nil).errorCode() == "message_required")
        #expect(try await server.write("POST", Self.schedules, json: valid, headers: [("If-Match", "\"5-0000000000000000\"")]).status == 412)
        #expect(try await server.write("POST", Self.schedules, json: valid, token: server.readerToken).status == 403)
        #expect(try await server.write("POST", "/v1/environments/nope/schedules", json: valid).status == 404)
        // The header's message is taken when the body has none.
        #expect(try await server.write("POST", Self.schedules, json: valid).status == 201)
    }

    @Test func protectedWritesBecomeRequestsAndDryRunsSaySo() async throws {
        let server = try TestServer()
        defer { server.stop() }
        try await server.protectProduction()
        let dryRun = try await server.write("PUT", "/v1/environments/production/flags/monetizationEnabled?dryRun=true", json: "false",
                                            token: server.readerToken)
        #expect(dryRun.status == 200)
        #expect(try dryRun.json()["needsApproval"] == true)
        #expect(try dryRun.json()["protectedFlags"] == ["monetizationEnabled", "premiumFeaturesLocked"])
        let free = try await server.write("PUT", "/v1/environments/production/flags/showIntroFreeSubscriptionBanner?dryRun=true",
                                          json: "false", token: server.readerToken)
        #expect(try free.json()["needsApproval"] == false)

        let flip = try await server.write("PUT", "/v1/environments/production/flags/monetizationEnabled", json: "false")
        #expect(flip.status == 202)
        let etag = try await server.etag()
        var document = try TestServer.flagFile("production")
        document = document.replacingOccurrences(of: #""default": false,"#, with: #""default": true,"#)
        let whole = try await server.write("PUT", "/v1/environments/production/document", json: document, headers: [("If-Match", etag)])
        #expect(whole.status == 202, "\(whole.text)")
        #expect(try whole.json()["change"]?["kind"] == "document")
        let banner = try await server.write("PUT", "/v1/environments/production/flags/showIntroFreeSubscriptionBanner", json: "false")
        #expect(banner.status == 200, "an unprotected flip publishes as before")
        let scheduled = try await server.write("POST", Self.schedules,
                                               json: #"{"at": "\#(Self.at(3_600_000))", "message": "m", "flags": {"premiumFeaturesLocked": true}}"#)
        #expect(scheduled.status == 202)
        #expect(try scheduled.json()["change"]?["applyAt"] != nil)

        let requests = try await server.get("/v1/environments/production/requests").json()["changes"]?.arrayValue ?? []
        #expect(requests.map { $0["kind"] } == ["flags", "document", "flags"], "newest first")
        #expect(requests.allSatisfy { $0["status"] == "pending" })
        let page = try await server.get("/v1/environments/production/requests?limit=2").json()
        #expect(page["changes"]?.arrayValue?.count == 2)
        let next = try #require(page["next"]?.integerValue)
        #expect(try await server.get("/v1/environments/production/requests?limit=2&before=\(next)").json()["changes"]?.arrayValue?.count == 1)
        #expect(try await server.get(Self.schedules).json()["changes"]?.arrayValue?.count == 1, "only the one with a time")
        #expect(try await server.get("/v1/environments/production/requests?status=bogus").errorCode() == "invalid_parameter")
        #expect(try await server.get("/v1/environments/production/requests?status=").errorCode() == "invalid_parameter")
        #expect(try await server.get("/v1/environments/production/schedules?status=pending,,applied").errorCode() == "invalid_parameter")
        #expect(try await server.get("/v1/environments/staging/requests").json()["changes"] == [])
    }
}
