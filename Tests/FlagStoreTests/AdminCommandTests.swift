import Foundation
import Testing
@testable import FlagStore

/// The admin subcommands `flagserver` exposes.
@Suite struct AdminCommandTests {
    @Test func parsesEveryCommand() throws {
        #expect(try AdminCommand.parse(["token", "create", "--name", "ci", "--role", "writer"]) == .tokenCreate(name: "ci", role: .writer))
        #expect(try AdminCommand.parse(["token", "create", "--role", "admin", "--name", "ops"]) == .tokenCreate(name: "ops", role: .admin))
        #expect(try AdminCommand.parse(["token", "list"]) == .tokenList(includeRevoked: false))
        #expect(try AdminCommand.parse(["token", "list", "--all"]) == .tokenList(includeRevoked: true))
        #expect(try AdminCommand.parse(["token", "revoke", "--name", "ci"]) == .tokenRevoke(name: "ci"))
        #expect(try AdminCommand.parse(["backup", "--to", "/tmp/x.sqlite"]) == .backup(destination: "/tmp/x.sqlite"))
        #expect(try AdminCommand.parse(["check"]) == .check)
        #expect(try AdminCommand.parse(["restore", "--from", "/tmp/b.sqlite"]) == .restore(source: "/tmp/b.sqlite"))
        #expect(throws: FlagStoreError.self) { try AdminCommand.parse(["restore"]) }
        #expect(AdminCommand.isAdminCommand(["token", "list"]) && !AdminCommand.isAdminCommand(["--port", "80"]))
    }

    @Test func refusesBadArgumentsWithTheirName() {
        let cases: [([String], String)] = [
            ([], "command"), (["serve"], "command"), (["token"], "token"), (["token", "delete"], "token"),
            (["token", "create", "--name", "ci"], "--role"), (["token", "create", "--role", "writer"], "--name"),
            (["token", "create", "--name", "ci", "--role", "root"], "--role"),
            (["token", "create", "--name"], "--name"), (["token", "create", "--name", "--role", "writer"], "--name"),
            (["token", "create", "--name", "a", "--name", "b", "--role", "reader"], "--name"),
            (["token", "list", "--name", "x"], "--name"), (["token", "revoke"], "--name"),
            (["token", "revoke", "--name", "a", "--role", "admin"], "--role"),
            (["backup"], "--to"), (["backup", "--to"], "--to"), (["check", "--fast"], "--fast"),
        ]
        for (arguments, name) in cases {
            let error = #expect(throws: FlagStoreError.self) { try AdminCommand.parse(arguments) }
            guard case .invalidArgument(let reported, _) = error else {
                Issue.record("\(arguments): expected invalidArgument, got \(String(describing: error))")
                continue
            }
            #expect(reported == name, "\(arguments)")
        }
    }

    @Test func runsTokenLifecycleAgainstARealFile() throws {
        let directory = try TemporaryDirectory()
        let store = try FlagStore.open(path: directory.file("flags.sqlite"))
        let created = try AdminCommand.tokenCreate(name: "ci", role: .writer).run(store: store, actor: "cli")
        let secret = try #require(created.split(separator: "\n").first { $0.hasPrefix("sfl_") })
        #expect(try store.authenticate(secret: String(secret))?.name == "ci")
        let list = try AdminCommand.tokenList(includeRevoked: false).run(store: store, actor: "cli")
        #expect(list.contains("ci\twriter\t") && !list.contains(String(secret)))
        #expect(try AdminCommand.tokenRevoke(name: "ci").run(store: store, actor: "cli") == "revoked token 'ci'\n")
        #expect(try store.authenticate(secret: String(secret)) == nil)
        #expect(throws: FlagStoreError.tokenNotFound("ci")) { try AdminCommand.tokenRevoke(name: "ci").run(store: store, actor: "cli") }
        #expect(try store.auditEntries().allSatisfy { $0.actor == "cli" })
    }

    @Test func runsBackupAndCheck() throws {
        let directory = try TemporaryDirectory()
        let store = try FlagStore.open(path: directory.file("flags.sqlite"))
        _ = try store.publish(environment: "production", document: document("a"), author: "a")
        #expect(try AdminCommand.check.run(store: store, actor: "cli") == "ok\n")
        let copy = directory.file("copy.sqlite")
        _ = try AdminCommand.backup(destination: copy).run(store: store, actor: "cli")
        #expect(try FlagStore.open(path: copy).currentVersion(environment: "production")?.document == document("a"))
    }

    @Test func checkReportsADocumentChangedInPlace() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        let store = try FlagStore.open(path: path)
        _ = try store.publish(environment: "production", document: document("a"), author: "a")
        try tamper(path, "UPDATE versions SET document = ?", [.blob(document("b"))])
        // The pages are fine, so integrity_check alone says ok; the content hash does not.
        #expect(try store.integrityCheck() == ["ok"])
        let error = #expect(throws: FlagStoreError.self) { try AdminCommand.check.run(store: store, actor: "cli") }
        #expect(error?.description.contains("version 1 of production is damaged") == true)
    }

    @Test func timestampsAreRFC3339UTC() {
        #expect(AdminCommand.timestamp(1_700_000_000_123) == "2023-11-14T22:13:20.123Z")
    }
}
