import CommandLineKit
import FlagStore
import TestSupport
import Testing
@testable import FlagServerCLI

/// `flagserver token create|list|revoke`: parsing on arrays, and the lifecycle against a real file.
@Suite struct TokenCommandTests {
    @Test func parsesEveryTokenCommand() {
        let create = parsedCommand(["token", "create", "--name", "ci", "--role", "writer"]) as? TokenCommand.Create
        #expect(create?.name == "ci" && create?.role == .writer)
        let swapped = parsedCommand(["token", "create", "--role", "admin", "--name", "ops"]) as? TokenCommand.Create
        #expect(swapped?.name == "ops" && swapped?.role == .admin)
        #expect((parsedCommand(["token", "list"]) as? TokenCommand.List)?.includeRevoked == false)
        #expect((parsedCommand(["token", "list", "--all"]) as? TokenCommand.List)?.includeRevoked == true)
        #expect((parsedCommand(["token", "revoke", "--name", "ci"]) as? TokenCommand.Revoke)?.name == "ci")
        #expect((parsedCommand(["token", "revoke", "ci"]) as? TokenCommand.Revoke)?.name == "ci", "NAME, as its help says")
        #expect(create?.environments == nil, "no --env: every environment")
        let scoped = parsedCommand(["token", "create", "--name", "ci", "--role", "writer", "--env", "staging", "--env", "qa"])
        #expect((scoped as? TokenCommand.Create)?.environments == ["staging", "qa"])
    }

    @Test(arguments: [
        (["token"], "missing token command (create, list, revoke)"),
        (["token", "delete"], "unknown token command 'delete' (create, list, revoke)"),
        (["token", "create", "--name", "ci"], "missing option '--role <reader|writer|admin>'"),
        (["token", "create", "--role", "writer"], "missing option '--name <name>'"),
        (["token", "create", "--name", "ci", "--role", "root"], "--role 'root' is not reader, writer or admin"),
        (["token", "create", "--name"], "option '--name' needs a value <name>"),
        (["token", "create", "--name", "--role", "writer"], "option '--name' needs a value <name>"),
        (["token", "create", "--name", "a", "--name", "b", "--role", "reader"], "option '--name' given more than once"),
        (["token", "create", "--name", "a", "--role", "reader", "--env"], "option '--env' needs a value <name>"),
        (["token", "list", "--name", "x"], "unknown option '--name'"),
        (["token", "revoke"], "missing the token's name: flagserver token revoke NAME"),
        (["token", "revoke", "a", "--name", "b"], "give the token's name once: as NAME or as --name NAME"),
        (["token", "revoke", "a", "b"], "unexpected argument 'b'"),
        (["token", "revoke", "--name", "a", "--role", "admin"], "unknown option '--role'"),
    ])
    func refusesBadArgumentsNamingThem(arguments: [String], message: String) {
        #expect(usageError(arguments)?.message == message)
    }

    @Test func runsTokenLifecycleAgainstARealFile() throws {
        let directory = try TemporaryDirectory()
        let store = try FlagStore.open(location: directory.file("flags.sqlite"))
        let created = try TokenCommand.Create(name: "ci", role: .writer).run(store: store, actor: "cli")
        let secret = try #require(created.split(separator: "\n").first { $0.hasPrefix("sfl_") })
        #expect(created.hasPrefix("created token 'ci' (role writer). Its secret, shown only now:\nsfl_"))
        #expect(try store.authenticate(secret: String(secret))?.name == "ci")
        let list = try TokenCommand.List(includeRevoked: false).run(store: store, actor: "cli")
        #expect(list.hasPrefix("NAME\tROLE\tCREATED\tREVOKED\tENVIRONMENTS\n"))
        #expect(list.contains("ci\twriter\t") && list.contains("\t-\t*\n") && !list.contains(String(secret)))
        #expect(try TokenCommand.Revoke(name: "ci").run(store: store, actor: "cli") == "revoked token 'ci'\n")
        #expect(try store.authenticate(secret: String(secret)) == nil)
        #expect(try TokenCommand.List(includeRevoked: false).run(store: store, actor: "cli") == "NAME\tROLE\tCREATED\tREVOKED\tENVIRONMENTS\n")
        #expect(try TokenCommand.List(includeRevoked: true).run(store: store, actor: "cli").contains("ci\twriter\t"))
        #expect(throws: FlagStoreError.tokenNotFound("ci")) { try TokenCommand.Revoke(name: "ci").run(store: store, actor: "cli") }
        #expect(try store.auditEntries().allSatisfy { $0.actor == "cli" })
    }

    @Test func aScopedTokenIsCreatedListedAndAnUnknownEnvironmentRefused() throws {
        let directory = try TemporaryDirectory()
        let store = try FlagStore.open(location: directory.file("flags.sqlite"))
        let created = try TokenCommand.Create(name: "staging-ci", role: .writer, environments: ["staging"]).run(store: store, actor: "cli")
        #expect(created.hasPrefix("created token 'staging-ci' (role writer, environments staging). Its secret, shown only now:\nsfl_"))
        let secret = try #require(created.split(separator: "\n").first { $0.hasPrefix("sfl_") })
        #expect(try store.authenticate(secret: String(secret))?.environments == ["staging"])
        let list = try TokenCommand.List(includeRevoked: false).run(store: store, actor: "cli")
        #expect(list.contains("staging-ci\twriter\t") && list.hasSuffix("\t-\tstaging\n"))
        #expect(throws: FlagStoreError.unknownEnvironment("prod", known: ["production", "staging"])) {
            try TokenCommand.Create(name: "typo", role: .writer, environments: ["staging", "prod"]).run(store: store, actor: "cli")
        }
        #expect(try store.listTokens().map(\.name) == ["staging-ci"], "nothing was created for the typo")
        #expect(try store.auditEntries().first?.detail == "name staging-ci role writer environments staging")
    }
}
