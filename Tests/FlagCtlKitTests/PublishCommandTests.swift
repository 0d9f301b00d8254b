import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagCtlKit

/// `flagctl publish` against a real `flagserver`: confirmation, `--yes`, `--dry-run`, unchanged content,
/// refusals, and a real race with another writer while the binary waits at its prompt.
@Suite struct PublishCommandTests {
    /// The server's current envelope, read with `flagctl get --json`.
    static func current(_ server: SeededFlagServer, _ environment: String = "production") throws -> [String: JSONValue] {
        let run = try server.flagctl(["get", environment, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try JSONParser.parse(run.stdout).value.objectValue)
    }

    /// production.json with premiumFeaturesLocked's default turned to `value`.
    static func production(premiumDefault value: Bool) throws -> String {
        let text = String(decoding: try TestSupport.bytes("flags/production.json"), as: UTF8.self)
        var root = try #require(try JSONParser.parse(text).value.objectValue)
        var flags = try #require(root["flags"]?.objectValue)
        var premium = try #require(flags["premiumFeaturesLocked"]?.objectValue)
        premium["default"] = .bool(value)
        flags["premiumFeaturesLocked"] = .object(premium)
        root["flags"] = .object(flags)
        return JSONValue.object(root).prettyString
    }

    @Test func publishWithYesShowsTheDiffAndPublishes() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        let directory = try TestSupport.directory(with: ["production.json": try Self.production(premiumDefault: true)])
        let run = try server.flagctl(["publish", "production.json", "--env", "production", "-m", "Bezahlstart für immer? nein: 100% Test", "--yes"],
                                     in: directory)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0] == "--- production (version 1 on \(server.url))")
        #expect(lines[1] == "+++ production.json")
        #expect(lines[2] == "~ flag premiumFeaturesLocked")
        #expect(lines[3] == "    default: false -> true")
        #expect(lines.last?.hasPrefix("published production version 2 by ci at ") == true)
        #expect(lines.last?.hasSuffix(": Bezahlstart für immer? nein: 100% Test") == true)
        let now = try Self.current(server)
        #expect(now["version"] == .integer(2))
        #expect(now["message"] == .string("Bezahlstart für immer? nein: 100% Test"))
        #expect(now["document"]?.objectValue?["flags"]?.objectValue?["premiumFeaturesLocked"]?.objectValue?["default"] == .bool(true))

        // The same file again: nothing to publish, and no version is made.
        let again = try server.flagctl(["publish", "production.json", "--env", "production", "-m", "again", "--yes"], in: directory)
        #expect(again.status == 0)
        #expect(again.stdout == "production already serves this content (version 2): nothing to publish\n")
        #expect(try Self.current(server)["version"] == .integer(2))
    }

    @Test func dryRunAndMissingConfirmationPublishNothing() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        let directory = try TestSupport.directory(with: ["p.json": try Self.production(premiumDefault: true)])
        let dry = try server.flagctl(["publish", "p.json", "--env", "production", "--dry-run"], in: directory)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("    default: false -> true\n"))
        #expect(dry.stdout.hasSuffix("dry run: the server accepts this document; nothing was published\n"))
        // Standard input is /dev/null: nobody can confirm, so without --yes nothing happens.
        let refused = try server.flagctl(["publish", "p.json", "--env", "production", "-m", "go"], in: directory)
        #expect(refused.status == 2)
        #expect(refused.stderr == "flagctl: standard input is not a terminal, so nobody can confirm: pass --yes to go ahead; nothing was changed\n")
        #expect(try Self.current(server)["version"] == .integer(1))
    }

    @Test func invalidFileIsRefusedLocallyAndPublishesNothing() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        let directory = try TestSupport.directory(with: ["bad.json": #"{"flags": {"x": {"type": "boolean", "default": 3}}}"#])
        let run = try server.flagctl(["publish", "bad.json", "--env", "production", "-m", "x", "--yes"], in: directory)
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("flagctl: bad.json is not a valid flag document:\n  bad.json: /flags/x/default: "))
        #expect(try Self.current(server)["version"] == .integer(1))
    }

    @Test(arguments: [
        (["publish", "p.json", "-m", "x"], "missing --env: name the environment to publish to"),
        (["publish", "p.json", "--env", "production"], "missing -m/--message: say why, it is recorded with the change"),
        (["publish", "p.json", "--env", "production", "-m", "  "], "the message must not be blank"),
        (["publish", "p.json", "--env", "Prod", "-m", "x"], "'Prod' is not an environment name (lowercase letters, digits and '-')"),
        (["publish", "-", "--env", "production", "-m", "x"], "reading the document from standard input leaves nothing to answer the prompt: add --yes"),
    ])
    func usageErrors(arguments: [String], message: String) throws {
        let run = try TestSupport.run(arguments)
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("flagctl: error: \(message)\nUsage: \(FlagCtl.usage(of: PublishCommand.self))\n"))
    }

    /// The race, for real: the binary fetched version 1 and its ETag and waits at its prompt on a terminal;
    /// meanwhile another writer publishes version 2; then the operator answers y. The binary's PUT carries
    /// If-Match of version 1, the server answers 412, and nothing of this publish lands.
    @Test func publishRacingAnotherWriterFailsWith412AndChangesNothing() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        let directory = try TestSupport.directory(with: ["p.json": try Self.production(premiumDefault: true)])
        let file = directory.appendingPathComponent("p.json").path
        let session = try InteractiveRun(["publish", file, "--env", "production", "-m", "mine"], environment: server.environment())
        try session.waitFor("Publish this to production as version 2? [y/N] ")
        let other = try server.flagctl(["set", "production", "introOfferMessage", "Symi ist gratis.", "-m", "theirs"])
        #expect(other.status == 0, "\(other.stderr)")
        try session.type("y\n")
        let (status, output) = try session.finish()
        #expect(status == 2, "\(output)")
        #expect(output.contains("flagctl: someone else published production version 2 meanwhile (this change was based on version 1): "
                                + "nothing was changed; run the command again to see the new diff"))
        #expect(!output.contains("published production version 2 by"))
        let now = try Self.current(server)
        #expect(now["version"] == .integer(2))
        #expect(now["message"] == .string("theirs"))
        #expect(now["document"]?.objectValue?["flags"]?.objectValue?["premiumFeaturesLocked"]?.objectValue?["default"] == .bool(false))
    }

    @Test func answeringNoAtThePromptPublishesNothing() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        let directory = try TestSupport.directory(with: ["p.json": try Self.production(premiumDefault: true)])
        let session = try InteractiveRun(["publish", directory.appendingPathComponent("p.json").path, "--env", "production", "-m", "x"],
                                         environment: server.environment())
        try session.waitFor("[y/N] ")
        try session.type("n\n")
        let (status, output) = try session.finish()
        #expect(status == 1, "\(output)")
        #expect(output.contains("nothing was changed"))
        #expect(try Self.current(server)["version"] == .integer(1))
    }

    @Test func aDocumentChangingAProtectedFlagIsAChangeRequestAndExits3() throws {
        let server = try SeededFlagServer(policies: true)
        defer { server.stop() }
        let text = String(decoding: try TestSupport.bytes("flags/production.json"), as: UTF8.self)
            .replacingOccurrences(of: #""default": true"#, with: #""default": false"#)
        let directory = try TestSupport.directory(with: ["next.json": text])
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try server.flagctl(["publish", "next.json", "--env", "production", "-m", "all off", "--yes"], in: directory)
        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stdout.contains("nothing was published: production change request 1 needs a second person's approval\n"))
        #expect(run.stdout.contains("  protected:  monetizationEnabled, premiumFeaturesLocked\n"))
        #expect(try Self.current(server)["version"] == .integer(1))
    }
}
