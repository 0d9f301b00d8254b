import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagCtlKit

/// `flagctl set` (a flip) against a real `flagserver`, and the token refusals.
@Suite struct SetCommandTests {
    @Test func flipsAFlagForEveryone() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        let run = try server.flagctl(["set", "production", "premiumFeaturesLocked", "true", "-m", "Paid launch"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "production: premiumFeaturesLocked false -> true for everyone (its 1 rule was removed)")
        #expect(lines.last?.hasPrefix("published production version 2 by ci at ") == true)
        let flag = try server.flagctl(["get", "production", "premiumFeaturesLocked"])
        let definition = try #require(try JSONParser.parse(flag.stdout).value.objectValue)
        #expect(definition["default"] == .bool(true))
        #expect(definition["rules"] == nil || definition["rules"] == .array([]))
        #expect(definition["requires"] == .object(["monetizationEnabled": true]))

        let again = try server.flagctl(["set", "production", "premiumFeaturesLocked", "true", "-m", "again"])
        #expect(again.status == 0)
        #expect(again.stdout == "production: premiumFeaturesLocked is already true for everyone (version 2): nothing to change\n")

        // A string flag takes the text as it is, even when it looks like JSON.
        let text = try server.flagctl(["set", "production", "introOfferMessage", "true", "-m", "odd but allowed"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(try server.flagctl(["get", "production", "introOfferMessage"]).stdout.contains(#""default": "true""#))
    }

    @Test func refusesUnknownFlagsAndWrongTypesWithoutWriting() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        let unknown = try server.flagctl(["set", "production", "premiumFeaturesLockd", "true", "-m", "typo"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "flagctl: flag \"premiumFeaturesLockd\" is not in production (version 1); publish a document to add a flag\n")
        let type = try server.flagctl(["set", "production", "premiumFeaturesLocked", "yes", "-m", "x"])
        #expect(type.status == 2)
        #expect(type.stderr == "flagctl: flag premiumFeaturesLocked is boolean; 'yes' is string\n")
        #expect(try PublishCommandTests.current(server)["version"] == .integer(1))
    }

    @Test func wrongOrMissingTokenOrRoleIsOneClearLine() throws {
        let server = try SeededFlagServer()
        defer { server.stop() }
        let path = "\(server.url)/v1/environments/production/flags/monetizationEnabled"
        let wrong = try server.flagctl(["set", "production", "monetizationEnabled", "false", "-m", "x"],
                                       environment: server.environment(token: .value("sfl_not-a-real-token")))
        #expect(wrong.status == 2)
        #expect(wrong.stderr == "flagctl: PUT \(path): 401 unauthorized: unknown or revoked token (the server does not accept FLAGCTL_TOKEN)\n")
        let missing = try server.flagctl(["set", "production", "monetizationEnabled", "false", "-m", "x"],
                                         environment: server.environment(token: .none))
        #expect(missing.status == 2)
        #expect(missing.stderr == "flagctl: PUT \(path): 401 unauthorized: this needs a writer token (Authorization: Bearer ...) "
                + "(set FLAGCTL_TOKEN to a token from 'flagserver token create')\n")
        let reader = try server.token(name: "dashboard", role: "reader")
        let forbidden = try server.flagctl(["set", "production", "monetizationEnabled", "false", "-m", "x"],
                                           environment: server.environment(token: .value(reader)))
        #expect(forbidden.status == 2)
        #expect(forbidden.stderr == "flagctl: PUT \(path): 403 forbidden: this token has role reader; this needs writer "
                + "(FLAGCTL_TOKEN's role is not allowed to do this)\n")
        #expect(try PublishCommandTests.current(server)["version"] == .integer(1))
    }

    @Test(arguments: [("true", FlagType.boolean, JSONValue.bool(true)), ("42", .integer, .integer(42)), ("x y", .json, .string("x y")),
                      (#""quoted""#, .string, .string("quoted")), ("42", .string, .string("42")), (#"{"a":1}"#, .json, .object(["a": 1]))])
    func valueParsing(text: String, type: FlagType, value: JSONValue) {
        #expect(SetCommand.value(text, for: type) == value)
    }
}
