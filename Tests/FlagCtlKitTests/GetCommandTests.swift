import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagCtlKit

/// `flagctl get` against a real `flagserver`.
@Suite struct GetCommandTests {
    @Test func printsTheServedDocumentAFlagOrTheEnvelope() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        let file = try FlagDocument.decode(try TestSupport.bytes("flags/production.json"))

        let document = try server.flagctl(["get", "production"])
        #expect(document.status == 0)
        #expect(document.stderr.isEmpty)
        // Pretty JSON of exactly the seeded content: redirecting it to a file gives a publishable document.
        #expect(document.stdout == file.prettyJSON)

        let flag = try server.flagctl(["get", "production", "premiumFeaturesLocked"])
        #expect(flag.status == 0)
        let premium = try #require(file.flags["premiumFeaturesLocked"])
        #expect(flag.stdout == premium.jsonValue.prettyString)

        let envelope = try #require(try JSONParser.parse(try server.flagctl(["get", "production", "--json"]).stdout).value.objectValue)
        #expect(envelope["environment"] == "production")
        #expect(envelope["version"] == .integer(1))
        #expect(envelope["author"] == "flagserver")
        #expect(envelope["contentHash"] == .string(file.contentHash))
        #expect(envelope["document"] == file.jsonValue)

        let flagJSON = try #require(try JSONParser.parse(try server.flagctl(["get", "production", "monetizationEnabled", "--json"]).stdout)
            .value.objectValue)
        #expect(flagJSON["key"] == "monetizationEnabled")
        #expect(flagJSON["version"] == .integer(1))
        #expect(flagJSON["flag"] == file.flags["monetizationEnabled"]?.jsonValue)

        // Reads need no token.
        let anonymous = try server.flagctl(["get", "staging@1"], environment: server.environment(token: .none))
        #expect(anonymous.status == 0)
        #expect(anonymous.stdout == (try FlagDocument.decode(try TestSupport.bytes("flags/staging.json"))).prettyJSON)
    }

    @Test func unknownFlagEnvironmentOrVersionIsOneLineAndExit2() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        let flag = try server.flagctl(["get", "production", "nope"])
        #expect(flag.status == 2)
        #expect(flag.stdout.isEmpty)
        #expect(flag.stderr == "flagctl: flag \"nope\" is not in production (version 1 on \(server.url))\n")
        let environment = try server.flagctl(["get", "qa"])
        #expect(environment.status == 2)
        #expect(environment.stderr == "flagctl: GET \(server.url)/v1/environments/qa/document: 404 unknown_environment: "
                + "unknown environment 'qa'; known: production, staging\n")
        let version = try server.flagctl(["get", "production@9"])
        #expect(version.status == 2)
        #expect(version.stderr == "flagctl: GET \(server.url)/v1/environments/production/versions/9: 404 version_not_found: production has no version 9\n")
    }

    @Test func helpAndUsage() throws {
        let help = try TestSupport.run(["get", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: flagctl get [--json] <env> [<flag>]"))
        let file = try TestSupport.run(["get", "flags/production.json"])
        #expect(file.status == 64)
        #expect(file.stderr.hasPrefix("flagctl: error: 'flags/production.json' is not an environment name"))
    }
}
