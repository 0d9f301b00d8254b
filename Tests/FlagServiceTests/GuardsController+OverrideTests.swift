import FlagKit
import FlagStore
import Foundation
import TestSupport
import Testing
@testable import FlagService

/// The override from the operator's tool: a guard really trips and rolls back in process (refunds through the real
/// receiver, the job's clock stepped), then the real `flagctl` binary overrides it over the service's socket. The
/// guard's creator and the watched version's author are refused (exit 2, a line saying a second person must); a
/// second person's override republishes the watched version's content as a new version by them.
@Suite struct GuardsControllerOverrideTests {
    /// What one run of `flagctl` gave.
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs the built `flagctl` with `arguments` against `server` as `token`; outputs through files, so no pipe fills.
    /// Spawned with `SpawnedProcess`, not Foundation's `Process` (this target's open descriptors, docs/architecture.md).
    static func flagctl(_ arguments: [String], server: TestServer, token: String) async throws -> Run {
        let binary = try FlagServerProcess.builtProduct("flagctl")
        let port = server.port
        return try await offPool {
            let scratch = try TemporaryDirectory()
            defer { scratch.remove() }
            let process = try SpawnedProcess(binary, arguments, stdout: scratch.file("stdout"), stderr: scratch.file("stderr"),
                                             environment: ["PATH": "/usr/bin:/bin", "FLAGCTL_SERVER": "http://127.0.0.1:\(port)",
                                                           "FLAGCTL_TOKEN": token])
            process.waitUntilExit()
            let read = { (name: String) in (try? String(contentsOfFile: scratch.file(name), encoding: .utf8)) ?? "" }
            return Run(status: process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus,
                       stdout: read("stdout"), stderr: read("stderr"))
        }
    }

    @Test func flagctlOverridesARealTripOnlyAsASecondPerson() async throws {
        let harness = try await GuardHarness()
        defer { harness.stop() }
        let server = harness.server
        try harness.storeNormalRefunds()
        let carol = try server.token("ops-carol")
        let created = try await harness.addGuard(#"{"version": 2, "rule": {"metric": "refunds", "action": "rollback"}}"#, token: carol)
        let id = try #require(try created.json()["guard"]?["id"]?.integerValue)
        try await harness.postRefundSpike(count: 25)
        harness.pass(hours: 2, minutes: 5)
        let tripped = try server.store.guardRecord(id: id)
        #expect(tripped.status == .tripped && tripped.action?["version"] == 3, "\(String(describing: tripped.action))")
        let shown = try await Self.flagctl(["guard", "show", String(id)], server: server, token: carol)
        #expect(shown.status == 0 && shown.stdout.contains("  action:        rollback done: version 3\n"), "\(shown.stdout)\(shown.stderr)")
        #expect(shown.stdout.contains("override (another writer, not its author): flagctl guard override \(id) -m MESSAGE\n"))

        // The guard's creator, then the watched version's author (the test writer published version 2): refused.
        let path = "http://127.0.0.1:\(server.port)/v1/guards/\(id)/override"
        let own = try await Self.flagctl(["guard", "override", String(id), "-m", "mine"], server: server, token: carol)
        #expect(own.status == 2 && own.stdout.isEmpty)
        #expect(own.stderr == "flagctl: POST \(path): 403 self_override: ops-carol made guard \(id) or its version; "
                + "a second person must override it (another person's token must override it)\n", "\(own.stderr)")
        let author = try await Self.flagctl(["guard", "override", String(id), "-m", "mine"], server: server, token: server.writerToken)
        #expect(author.status == 2 && author.stderr.contains("403 self_override: test-writer made guard \(id) or its version"),
                "\(author.stderr)")
        #expect(try server.store.guardRecord(id: id).status == .tripped)
        #expect(try server.store.newestVersions()["production"]?.number == 3, "nothing republished")

        // A second person: the watched version's content comes back as version 4, by them, naming the override.
        let bob = try server.token("ops-bob")
        let overridden = try await Self.flagctl(["guard", "override", String(id), "-m", "a store outage, not the change"],
                                                server: server, token: bob)
        #expect(overridden.status == 0, "\(overridden.stderr)")
        #expect(overridden.stdout == "overrode guard \(id) of production version 2 (overridden): a store outage, not the change\n"
                + "  what it had done: rollback done: version 3\n"
                + "  republished the watched version's content as version 4\n", "\(overridden.stdout)")
        let four = try server.store.version(environment: "production", number: 4)
        #expect(four.author == "ops-bob" && four.message == "override of guard \(id): a store outage, not the change", "\(four.message)")
        #expect(four.contentHash == (try server.store.version(environment: "production", number: 2)).contentHash)
        let document = try await server.get("/v1/environments/production/document")
        #expect(document.header("ETag")?.contains("4") == true, "\(String(describing: document.header("ETag")))")
        let record = try server.store.guardRecord(id: id)
        #expect(record.status == .overridden && record.overriddenBy == "ops-bob" && record.overrideMessage == "a store outage, not the change")
        #expect(try harness.audit("guard.override", guard: id).map(\.actor) == ["ops-bob", "test-writer", "ops-carol"])

        // Once overridden, it is not tripped any more.
        let again = try await Self.flagctl(["guard", "override", String(id), "-m", "again"], server: server, token: bob)
        #expect(again.status == 2 && again.stderr.contains("409 not_tripped: guard \(id) is overridden, not tripped"), "\(again.stderr)")
        #expect(try server.store.newestVersions()["production"]?.number == 4)
    }

    @Test func flagctlOverridesAPauseAndTheHeldScheduleIsReleased() async throws {
        let harness = try await GuardHarness()
        defer { harness.stop() }
        let server = harness.server
        try harness.storeNormalRefunds()
        let carol = try server.token("ops-carol")
        let created = try await harness.addGuard(#"{"version": 2, "rule": {"metric": "refunds", "action": "pauseSchedules"}}"#, token: carol)
        let id = try #require(try created.json()["guard"]?["id"]?.integerValue)
        // Due in a day: held by the trip, released by the override, still waiting for its time.
        let at = RFC3339.string(milliseconds: ServiceMetrics.wallMilliseconds() + 24 * GuardHarness.hour)
        let schedule = try await server.write("POST", "/v1/environments/production/schedules",
                                              json: #"{"at": "\#(at)", "flags": {"premiumFeaturesLocked": true}}"#)
        let change = try #require(try schedule.json()["change"]?["id"]?.integerValue, "\(schedule.text)")
        try await harness.postRefundSpike(count: 25)
        harness.pass(hours: 2, minutes: 5)
        #expect(try server.store.change(id: change).heldByGuard == id)
        let own = try await Self.flagctl(["guard", "override", String(id), "-m", "mine"], server: server, token: carol)
        #expect(own.status == 2 && own.stderr.contains("403 self_override: ops-carol made guard \(id) or its version"), "\(own.stderr)")
        #expect(try server.store.change(id: change).heldByGuard == id)
        let bob = try server.token("ops-bob")
        let overridden = try await Self.flagctl(["guard", "override", String(id), "-m", "the refunds were a test purchase"],
                                                server: server, token: bob)
        #expect(overridden.status == 0, "\(overridden.stderr)")
        #expect(overridden.stdout == "overrode guard \(id) of production version 2 (overridden): the refunds were a test purchase\n"
                + "  what it had done: pauseSchedules done: changes \(change)\n", "\(overridden.stdout)")
        let released = try server.store.change(id: change)
        #expect(released.status == .scheduled && released.heldByGuard == nil)
        #expect(try server.store.newestVersions()["production"]?.number == 2, "nothing republished")
    }
}
