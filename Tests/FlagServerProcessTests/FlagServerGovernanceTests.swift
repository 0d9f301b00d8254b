import FlagKit
import FlagService
import FlagServiceTestSupport
import FlagStore
import Foundation
import Glibc
import TestSupport
import Testing

/// Governance against the real `flagserver` process, with real time: schedules run on time and survive a
/// restart, conflicts are never overwritten, protected flags need a second person, requests expire and go
/// stale, and `kill -9` between an approval and its publication loses nothing. Short delays; the tests poll.
///
/// Serialized: each test keeps time against a server of its own, and a debug build's answer to a new change
/// measures its impact on 100,000 installs (about a second of CPU), so parallel servers would only make the
/// times these tests check depend on the load of the others.
@Suite(.serialized) struct FlagServerGovernanceTests {
    /// A flagserver over a database in a temporary directory, seeded from the repository's `flags/` (with
    /// `flags/policy/`: production protects premiumFeaturesLocked and monetizationEnabled), and two writers.
    final class Governed: @unchecked Sendable {
        let directory: String
        var server: FlagServerProcess
        var port: Int
        let alice: String
        let bob: String
        static let flags = repositoryRoot.appendingPathComponent("flags").path

        /// Creates the tokens (and lets `prepare` write to the database) before the first start.
        init(prepare: (FlagStore) throws -> Void = { _ in }) async throws {
            directory = try makeTemporaryDirectory()
            let store = try FlagStore.open(location: directory + "/flags.sqlite")
            try FlagService.seed(store: store, flagsDirectory: Self.flags, logger: ServiceLogger(minimumLevel: .off))
            alice = try store.createToken(name: "ops-alice", role: .writer).secret
            bob = try store.createToken(name: "ops-bob", role: .writer).secret
            try prepare(store)
            store.close()
            (server, port) = try await Self.start(directory)
        }

        static func start(_ directory: String) async throws -> (FlagServerProcess, Int) {
            let server = try FlagServerProcess(["--port", "0", "--database", "flags.sqlite", "--flags-dir", flags], directory: directory)
            return (server, try await server.waitUntilReady())
        }

        /// Stops (SIGTERM, or SIGKILL) and starts the server again on the same database.
        func restart(signal: Int32 = SIGTERM) async throws {
            await server.stop(signal: signal)
            (server, port) = try await Self.start(directory)
        }

        func finish() {
            server.blockingStop()
            try? FileManager.default.removeItem(atPath: directory)
        }

        func request(_ method: String, _ path: String, token: String? = nil, json: String? = nil,
                     headers: [(String, String)] = []) async throws -> RawHTTPResponse {
            var all = headers
            if let token { all.append(("Authorization", "Bearer \(token)")) }
            if json != nil { all.append(("Content-Type", "application/json")) }
            return try await RawHTTP.request(port: port, method: method, path: path, headers: all, body: json.map { Array($0.utf8) })
        }

        func get(_ path: String) async throws -> JSONValue { try await request("GET", path).json() }

        /// Sends a change (`POST .../schedules`, or a protected write) without waiting for its answer, which
        /// measures the impact first; returns the change's id as soon as `listing` shows it (committed), and
        /// the answer to come.
        func propose(_ method: String, _ path: String, json: String, token: String, message: String = "m",
                     listing: String) async throws -> (id: Int64, answer: Task<RawHTTPResponse?, Never>) {
            let known = Set(try await get(listing)["changes"]?.arrayValue?.compactMap { $0["id"]?.integerValue } ?? [])
            let answer = Task { try? await self.request(method, path, token: token, json: json, headers: [("X-Change-Message", message)]) }
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                let ids = try await get(listing)["changes"]?.arrayValue?.compactMap { $0["id"]?.integerValue } ?? []
                if let id = ids.first(where: { !known.contains($0) }) { return (id, answer) }
                usleep(10_000)
            }
            throw TestFailure("no new change in \(listing) after \(method) \(path)")
        }

        /// Polls `GET /v1/changes/{id}` (up to `seconds`) until the change's status is not `waiting` any more.
        func change(_ id: Int64, whileStatus waiting: Set<String>, seconds: Double = 10) async throws -> JSONValue {
            let deadline = Date().addingTimeInterval(seconds)
            while true {
                let change = try await get("/v1/changes/\(id)")["change"] ?? .null
                guard let status = change["status"]?.stringValue, waiting.contains(status), Date() < deadline else { return change }
                usleep(20_000)
            }
        }

        /// The database as the server left it (opened read-write alongside the server, like the admin commands).
        func store<T>(_ body: (FlagStore) throws -> T) throws -> T {
            let store = try FlagStore.open(location: directory + "/flags.sqlite")
            defer { store.close() }
            return try body(store)
        }
    }

    static func at(_ offset: Int64) -> (text: String, milliseconds: Int64) {
        let milliseconds = ChangeScheduler.wallClock() + offset
        return (RFC3339.string(milliseconds: milliseconds), milliseconds)
    }

    static func schedule(_ flags: String, at: String, message: String = "the free intro period is over") -> String {
        #"{"at": "\#(at)", "message": "\#(message)", "flags": \#(flags)}"#
    }

    static let bannerOff = #"{"showIntroFreeSubscriptionBanner": false}"#

    @Test func aScheduleIsPublishedOnTimeAsANewVersionWithItsAuthorAndMessage() async throws {
        let governed = try await Governed()
        defer { governed.finish() }
        let at = Self.at(2_500)
        let created = try await governed.request("POST", "/v1/environments/production/schedules", token: governed.alice,
                                                 json: Self.schedule(Self.bannerOff, at: at.text))
        #expect(created.status == 201, "\(created.text)")
        let id = try #require(try created.json()["change"]?["id"]?.integerValue)
        let change = try await governed.change(id, whileStatus: ["scheduled"])
        #expect(change["status"] == "applied")
        let version = try await governed.get("/v1/environments/production/versions/2")
        #expect(version["author"] == "ops-alice")
        #expect(version["message"] == "the free intro period is over")
        #expect(version["document"]?["flags"]?["showIntroFreeSubscriptionBanner"]?["default"] == false)
        let published = try RFC3339.milliseconds(parsing: try #require(version["publishedAt"]?.stringValue))
        #expect(published >= at.milliseconds, "never before its time")
        #expect(published - at.milliseconds < 1_000, "published \(published - at.milliseconds) ms after its time")
        #expect(change["appliedVersion"] == 2)
    }

    @Test func aScheduleThatFellDueWhileTheServerWasDownRunsAtStart() async throws {
        let governed = try await Governed()
        defer { governed.finish() }
        let at = Self.at(2_000)
        let (id, _) = try await governed.propose("POST", "/v1/environments/production/schedules", json: Self.schedule(Self.bannerOff, at: at.text),
                                                 token: governed.alice, listing: "/v1/environments/production/schedules")
        // Down before its time (killed: a graceful stop would first finish the answer in flight).
        await governed.server.stop(signal: SIGKILL)
        #expect(try governed.store { try $0.change(id: id).status } == .scheduled, "stopped before its time")
        while ChangeScheduler.wallClock() < at.milliseconds + 300 { usleep(50_000) }
        (governed.server, governed.port) = try await Governed.start(governed.directory)
        // Applied before the server answered anything.
        let change = try await governed.get("/v1/changes/\(id)")["change"]
        #expect(change?["status"] == "applied")
        let appliedAt = try RFC3339.milliseconds(parsing: try #require(change?["appliedAt"]?.stringValue))
        #expect(appliedAt > at.milliseconds + 300, "the record says when it really ran")
        #expect(try await governed.get("/v1/environments/production/document")["version"] == 2)
        #expect(governed.server.errors.contains("event=changes_caught_up count=1"))
    }

    @Test func aFlagChangedSinceMakesTheScheduleConflictedAndNothingIsOverwritten() async throws {
        let governed = try await Governed()
        defer { governed.finish() }
        let (id, _) = try await governed.propose("POST", "/v1/environments/production/schedules",
                                                 json: Self.schedule(Self.bannerOff, at: Self.at(2_500).text), token: governed.alice,
                                                 listing: "/v1/environments/production/schedules")
        // A later decision: the banner stays, with a rule for internal testers.
        let rule = #"{"type": "boolean", "default": true, "requires": {"monetizationEnabled": true}, "rules": [{"cohort": "internal", "value": false}]}"#
        let later = try await governed.request("PUT", "/v1/environments/production/flags/showIntroFreeSubscriptionBanner", token: governed.bob,
                                               json: rule, headers: [("X-Change-Message", "keep the banner")])
        #expect(later.status == 200)
        let change = try await governed.change(id, whileStatus: ["scheduled"])
        #expect(change["status"] == "conflicted")
        #expect(change["conflicts"] == ["/flags/showIntroFreeSubscriptionBanner"])
        let document = try await governed.get("/v1/environments/production/document")
        #expect(document["version"] == 2)
        #expect(document["message"] == "keep the banner")
        #expect(document["document"]?["flags"]?["showIntroFreeSubscriptionBanner"]?["default"] == true)
    }

    @Test func aCancelledScheduleNeverRuns() async throws {
        let governed = try await Governed()
        defer { governed.finish() }
        let at = Self.at(2_000)
        let (id, _) = try await governed.propose("POST", "/v1/environments/production/schedules", json: Self.schedule(Self.bannerOff, at: at.text),
                                                 token: governed.alice, listing: "/v1/environments/production/schedules")
        let cancelled = try await governed.request("DELETE", "/v1/changes/\(id)", token: governed.bob)
        #expect(cancelled.status == 200)
        #expect(try await governed.get("/v1/environments/production/schedules?status=scheduled")["changes"] == [])
        while ChangeScheduler.wallClock() < at.milliseconds + 1_500 { usleep(50_000) }
        #expect(try await governed.get("/v1/changes/\(id)")["change"]?["status"] == "cancelled")
        #expect(try await governed.get("/v1/environments/production/document")["version"] == 1)
    }

    @Test func aProtectedFlipWaitsForASecondPersonWhoApprovesOrRejects() async throws {
        let governed = try await Governed()
        defer { governed.finish() }
        let flip = { (value: String, message: String) async throws -> RawHTTPResponse in
            try await governed.request("PUT", "/v1/environments/production/flags/premiumFeaturesLocked", token: governed.alice, json: value,
                                       headers: [("X-Change-Message", message)])
        }
        let proposed = try await flip("true", "paid launch")
        #expect(proposed.status == 202)
        let id = try #require(try proposed.json()["change"]?["id"]?.integerValue)
        #expect(try proposed.json()["change"]?["protectedFlags"] == ["premiumFeaturesLocked"])
        let own = try await governed.request("POST", "/v1/changes/\(id)/approve", token: governed.alice)
        #expect(own.status == 403)
        #expect(try own.errorCode() == "self_approval")
        let approved = try await governed.request("POST", "/v1/changes/\(id)/approve", token: governed.bob)
        #expect(approved.status == 200)
        #expect(try approved.json()["version"] == 2)
        let document = try await governed.get("/v1/environments/production/document")
        #expect(document["author"] == "ops-alice")
        #expect(document["document"]?["flags"]?["premiumFeaturesLocked"]?["default"] == true)

        let second = try await flip("false", "too early")
        let secondID = try #require(try second.json()["change"]?["id"]?.integerValue)
        let rejected = try await governed.request("POST", "/v1/changes/\(secondID)/reject", token: governed.bob,
                                                  json: #"{"message": "not before the announcement"}"#)
        #expect(rejected.status == 200)
        #expect(try rejected.json()["change"]?["status"] == "rejected")
        #expect(try await governed.get("/v1/environments/production/document")["version"] == 2)
    }

    @Test func anApprovedRequestWithATimeRunsThen() async throws {
        let governed = try await Governed()
        defer { governed.finish() }
        let at = Self.at(3_000)
        let (id, answer) = try await governed.propose(
            "POST", "/v1/environments/production/schedules",
            json: Self.schedule(#"{"premiumFeaturesLocked": true}"#, at: at.text, message: "lock at launch"), token: governed.alice,
            listing: "/v1/environments/production/requests")
        let approved = try await governed.request("POST", "/v1/changes/\(id)/approve", token: governed.bob)
        #expect(approved.status == 200, "\(approved.text)")
        #expect(try approved.json()["change"]?["status"] == "scheduled", "approved now, applied at its time")
        #expect(try await governed.get("/v1/environments/production/document")["version"] == 1)
        #expect(await answer.value?.status == 202, "a schedule touching a protected flag is a change request first")
        let change = try await governed.change(id, whileStatus: ["scheduled"])
        #expect(change["status"] == "applied")
        let version = try await governed.get("/v1/environments/production/versions/2")
        #expect(version["message"] == "lock at launch")
        #expect(version["author"] == "ops-alice")
        #expect(try RFC3339.milliseconds(parsing: version["publishedAt"]?.stringValue ?? "") >= at.milliseconds)
    }

    @Test func aRequestExpiresAtItsTime() async throws {
        // The policy's shortest lifetime is an hour; this request was written to the database with one of two
        // seconds, as if made two seconds short of its lifetime, before the server starts.
        var id: Int64 = 0
        let expiresAt = ChangeScheduler.wallClock() + 2_000
        let governed = try await Governed { store in
            id = try store.createChange(NewChange(
                environment: "production", kind: .flags,
                changeSet: ChangeSet(flags: ["monetizationEnabled": ["type": "boolean", "default": false]]), baseVersion: 1,
                author: "ops-alice", message: "pause", expiresAtMilliseconds: expiresAt, needsApproval: true,
                touchedFlags: ["monetizationEnabled", "premiumFeaturesLocked"], protectedFlags: ["monetizationEnabled"])).id
        }
        defer { governed.finish() }
        #expect(try await governed.get("/v1/changes/\(id)")["change"]?["status"] == "pending")
        let change = try await governed.change(id, whileStatus: ["pending"])
        #expect(change["status"] == "expired")
        #expect(change["decidedBy"] == "scheduler")
        let decidedAt = try RFC3339.milliseconds(parsing: change["decidedAt"]?.stringValue ?? "")
        #expect(decidedAt >= expiresAt && decidedAt - expiresAt < 1_000, "expired \(decidedAt - expiresAt) ms after its time")
        #expect(try await governed.request("POST", "/v1/changes/\(id)/approve", token: governed.bob).status == 409)
    }

    @Test func aConflictingPublishMakesAPendingRequestStale() async throws {
        let governed = try await Governed()
        defer { governed.finish() }
        let first = try await governed.request("PUT", "/v1/environments/production/flags/premiumFeaturesLocked", token: governed.alice,
                                               json: "true", headers: [("X-Change-Message", "lock everyone")])
        let firstID = try #require(try first.json()["change"]?["id"]?.integerValue)
        let rule = #"{"type": "boolean", "default": false, "requires": {"monetizationEnabled": true}, "rules": [{"cohort": "beta", "value": true}]}"#
        let second = try await governed.request("PUT", "/v1/environments/production/flags/premiumFeaturesLocked", token: governed.bob,
                                                json: rule, headers: [("X-Change-Message", "beta first")])
        let secondID = try #require(try second.json()["change"]?["id"]?.integerValue)
        #expect(try await governed.request("POST", "/v1/changes/\(secondID)/approve", token: governed.alice).status == 200)
        let stale = try await governed.change(firstID, whileStatus: ["pending"])
        #expect(stale["status"] == "stale")
        #expect(stale["conflicts"] == ["/flags/premiumFeaturesLocked"])
        let refused = try await governed.request("POST", "/v1/changes/\(firstID)/approve", token: governed.bob)
        #expect(refused.status == 409)
        #expect(try await governed.get("/v1/environments/production/document")["version"] == 2)
    }

    /// The number of versions of production whose message is `message`.
    static func versions(_ governed: Governed, message: String) throws -> [Int] {
        try governed.store { store in
            try store.versions(environment: "production", limit: 1000).filter { $0.message == message }.map(\.number)
        }
    }

    @Test func killNineBetweenTheApprovalAndThePublicationLosesNeitherTheRequestNorTheVersion() async throws {
        let governed = try await Governed()
        defer { governed.finish() }
        let proposed = try await governed.request("PUT", "/v1/environments/production/flags/premiumFeaturesLocked", token: governed.alice,
                                                  json: "true", headers: [("X-Change-Message", "paid launch")])
        let id = try #require(try proposed.json()["change"]?["id"]?.integerValue)
        // Exactly the state the approval route commits before it hands the change to the writer, reached
        // deterministically: the server is killed, then the approval is committed as the route commits it.
        await governed.server.stop(signal: SIGKILL)
        #expect(try governed.store { try $0.approveChange(id: id, actor: "ops-bob").record.status } == .approved)
        #expect(try Self.versions(governed, message: "paid launch").isEmpty)
        (governed.server, governed.port) = try await Governed.start(governed.directory)
        let change = try await governed.get("/v1/changes/\(id)")["change"]
        #expect(change?["status"] == "applied", "published at start, before the first request was answered")
        let numbers = try Self.versions(governed, message: "paid launch")
        #expect(numbers == [2], "the version exists exactly once")
        #expect(change?["appliedVersion"] == 2)
        // Once more after another kill: nothing is applied twice.
        try await governed.restart(signal: SIGKILL)
        #expect(try Self.versions(governed, message: "paid launch") == [2])
        #expect(try await governed.get("/v1/environments/production/document")["version"] == 2)
    }

    @Test func killNineAtARandomMomentOfAnApprovalKeepsRequestAndVersionConsistent() async throws {
        let governed = try await Governed()
        defer { governed.finish() }
        var outcomes: [String] = []
        for round in 0..<5 {
            let message = "round \(round)"
            let proposed = try await governed.request("PUT", "/v1/environments/production/flags/monetizationEnabled", token: governed.alice,
                                                      json: round % 2 == 0 ? "false" : "true", headers: [("X-Change-Message", message)])
            let id = try #require(try proposed.json()["change"]?["id"]?.integerValue)
            let port = governed.port
            let bob = governed.bob
            // The approval is sent, and the server killed a few milliseconds later, wherever it is by then.
            let approval = Task { try? await RawHTTP.request(port: port, method: "POST", path: "/v1/changes/\(id)/approve",
                                                             headers: [("Authorization", "Bearer \(bob)")]) }
            usleep(UInt32(1_000 + round * 3_000))
            try await governed.restart(signal: SIGKILL)
            _ = await approval.value
            let status = try await governed.get("/v1/changes/\(id)")["change"]?["status"]?.stringValue ?? "?"
            let numbers = try Self.versions(governed, message: message)
            switch status {
            case "pending":
                #expect(numbers.isEmpty, "not approved: nothing published")
                // Approve it now, so the next round starts from a published state.
                #expect(try await governed.request("POST", "/v1/changes/\(id)/approve", token: governed.bob).status == 200)
                #expect(try Self.versions(governed, message: message).count == 1)
            case "applied":
                #expect(numbers.count == 1, "approved (before or after the kill): published exactly once, \(numbers)")
                // Killed between the approval's commit and the publication: the new server published it at start.
                if governed.server.errors.contains("event=changes_caught_up") { outcomes.append("approved at the kill") }
            default:
                Issue.record("round \(round): change \(id) is \(status) after the restart")
            }
            outcomes.append(status)
        }
        // Which rounds hit the window between the approval's commit and the publication depends on timing; each
        // round's outcome is checked above. (The fixed-point test puts a server down in exactly that window.)
        print("kill -9 rounds: \(outcomes)")
    }
}
