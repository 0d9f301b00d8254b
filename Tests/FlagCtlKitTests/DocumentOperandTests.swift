import CommandLineKit
import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagCtlKit

/// Files, `ENV` and `ENV@N` as sides of `diff` and as the document of `eval`, against a real `flagserver`.
@Suite struct DocumentOperandTests {
    @Test(arguments: [("production", DocumentOperand.environment("production")), ("production@41", .version("production", 41)),
                      ("flags/production.json", .file("flags/production.json")), ("./production", .file("./production")),
                      ("-", .file("-")), ("Production", .file("Production")), ("eu-west-2@3", .version("eu-west-2", 3))])
    func argumentsNameFilesOrTheServer(argument: String, operand: DocumentOperand) throws {
        #expect(try DocumentOperand(argument) == operand)
    }

    @Test(arguments: ["production@0", "production@x", "production@", "production@-1"])
    func badVersionsAreUsageErrors(argument: String) {
        #expect(throws: UsageError.self) { try DocumentOperand(argument) }
    }

    @Test func diffFileAgainstServerEnvAgainstVersionAndTwoVersions() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }

        // One argument: the file against what the server serves for the environment the file names.
        let same = try server.flagctl(["diff", "flags/production.json"])
        #expect(same.status == 0, "\(same.stderr)")
        #expect(same.stdout == "--- production (version 1 on \(server.url))\n+++ flags/production.json\nno differences\n")

        #expect(try server.flagctl(["set", "production", "premiumFeaturesLocked", "true", "-m", "flip"]).status == 0)
        let changed = try server.flagctl(["diff", "flags/production.json"])
        #expect(changed.status == 1)
        #expect(changed.stdout == """
            --- production (version 2 on \(server.url))
            +++ flags/production.json
            ~ flag premiumFeaturesLocked
                default: true -> false
                + rule 0: cohort internal: true

            """)

        // --env names another environment for the file.
        let staging = try server.flagctl(["diff", "flags/production.json", "--env", "staging"])
        #expect(staging.status == 1)
        #expect(staging.stdout.hasPrefix("--- staging (version 1 on \(server.url))\n+++ flags/production.json\n"))

        // ENV against ENV@N, and two versions, as JSON too.
        let envVersion = try server.flagctl(["diff", "production@1", "production"])
        #expect(envVersion.status == 1)
        #expect(envVersion.stdout.hasPrefix("--- production@1 (on \(server.url))\n+++ production (version 2 on \(server.url))\n~ flag premiumFeaturesLocked\n"))
        let versions = try server.flagctl(["diff", "production@2", "production@1", "--json"])
        #expect(versions.status == 1)
        let json = try #require(try JSONParser.parse(versions.stdout).value.objectValue)
        #expect(json["from"] == "production@2")
        #expect(json["to"] == "production@1")
        let direct = DocumentDiff(from: try Self.served(server, "production@2"), to: try FlagDocument.decode(try TestSupport.bytes("flags/production.json")))
        #expect(json["flags"] == direct.jsonValue.objectValue?["flags"])
        let identical = try server.flagctl(["diff", "production@2", "production"])
        #expect(identical.status == 0)

        // --impact works on server sides like on files.
        let impact = try server.flagctl(["diff", "production@1", "production", "--impact", "--sample", "1000"])
        #expect(impact.status == 1)
        #expect(impact.stdout.contains("impact on 1,000 sampled installs"))
    }

    @Test func evalFetchesAndEvaluatesLocally() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        let fromServer = try server.flagctl(["eval", "production", "--context", "installId=tester", "premiumFeaturesLocked"])
        let fromFile = try TestSupport.run(["eval", "flags/production.json", "--context", "installId=tester", "premiumFeaturesLocked"])
        #expect(fromServer.status == 0)
        #expect(fromServer.stdout == fromFile.stdout)
        #expect(try server.flagctl(["set", "production", "premiumFeaturesLocked", "true", "-m", "flip"]).status == 0)
        let flipped = try server.flagctl(["eval", "production", "--context", "installId=tester", "premiumFeaturesLocked"])
        #expect(flipped.stdout == "premiumFeaturesLocked = true (variant default, reason STATIC)\n")
        let old = try server.flagctl(["eval", "production@1", "--context", "installId=tester", "premiumFeaturesLocked"])
        #expect(old.stdout == fromFile.stdout)
    }

    @Test func serverDownIsOneLineAndExit2() throws {
        // A port that was just free: bind nothing there. Port 1 needs no privileges to be refused.
        for arguments in [["get", "production"], ["diff", "flags/production.json"], ["eval", "production"], ["history", "production"],
                          ["set", "production", "monetizationEnabled", "false", "-m", "x"],
                          ["publish", "flags/production.json", "--env", "production", "-m", "x", "--yes"],
                          ["rollback", "production", "--to", "1", "-m", "x", "--yes"]] {
            let run = try TestSupport.run(arguments, environment: ["FLAGCTL_SERVER": "http://127.0.0.1:1", "FLAGCTL_TOKEN": "t"])
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stdout.isEmpty, "\(arguments)")
            #expect(run.stderr.hasPrefix("flagctl: cannot reach the server at http://127.0.0.1:1: "), "\(arguments)")
            #expect(run.stderr.hasSuffix("(connectionFailed, CURLcode 7)\n"), "\(arguments)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(arguments)")
        }
    }

    static func served(_ server: SeededFlagServer, _ operand: String) throws -> FlagDocument {
        try FlagDocument.decode(try server.flagctl(["get", operand]).stdout)
    }
}
