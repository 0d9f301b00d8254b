import CommandLineKit
import FlagKit
import FlagStore
import TestSupport
import Testing
@testable import FlagServerCLI

/// What every admin command shares: the database `--database` names, output, errors and exit statuses.
@Suite struct AdminCommandTests {
    @Test func runsAgainstTheDatabaseTheToolNames() throws {
        let directory = try TemporaryDirectory()
        let database = directory.file("t.sqlite")
        let created = runMain(["token", "create", "--name", "ops", "--role", "writer", "--database", database])
        #expect(created.status == 0 && created.stderr.isEmpty)
        #expect(created.stdout.contains("\nsfl_"))
        let listed = runMain(["--database", database, "token", "list"])
        #expect(listed.status == 0 && listed.stdout.contains("ops\twriter\t"))
        #expect(runMain(["token", "list"], environment: ["FLAGSERVER_DATABASE": database]).stdout == listed.stdout)
        let store = try FlagStore.open(location: database)
        #expect(try store.auditEntries().allSatisfy { $0.actor == "flagserver-cli" })
        store.close()
    }

    @Test func aStoreErrorIsOneLineAndExitOne() throws {
        let directory = try TemporaryDirectory()
        let revoked = runMain(["token", "revoke", "--name", "nobody", "--database", directory.file("t.sqlite")])
        #expect(revoked.status == 1)
        #expect(revoked.stdout.isEmpty)
        #expect(revoked.stderr == "flagserver: error: no active token named 'nobody'\n")
        let unopenable = runMain(["check", "--database", directory.path])
        #expect(unopenable.status == 1 && unopenable.stderr.hasPrefix("flagserver: error: "))
    }

    @Test func aUsageErrorIsExit64WithTheUsageLine() {
        let result = runMain(["token", "create", "--name", "x", "--role", "god"])
        #expect(result.status == 64)
        #expect(result.stderr == """
            flagserver: error: --role 'god' is not reader, writer or admin
            Usage: flagserver token create --name <name> --role <reader|writer|admin> [--env <name> ...]
            See 'flagserver token create --help'.

            """)
        #expect(runMain(["check", "--database", ""]).stderr.hasPrefix("flagserver: error: --database must not be empty\n"))
    }

    @Test func listedTimesAreTheStoredOnesInRFC3339UTC() throws {
        let directory = try TemporaryDirectory()
        let database = directory.file("t.sqlite")
        #expect(runMain(["token", "create", "--name", "ops", "--role", "reader", "--database", database]).status == 0)
        let store = try FlagStore.open(location: database)
        let created = try #require(try store.listTokens().first { $0.name == "ops" }).createdAtMilliseconds
        store.close()
        let row = try #require(runMain(["token", "list", "--database", database]).stdout.split(separator: "\n").first { $0.hasPrefix("ops\t") })
        #expect(row.split(separator: "\t").contains { $0 == RFC3339.string(milliseconds: created) }, "\(row)")
        #expect(RFC3339.string(milliseconds: created).hasSuffix("Z"))
    }
}
