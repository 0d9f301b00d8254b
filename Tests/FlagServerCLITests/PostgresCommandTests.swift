import FlagStore
import Foundation
import PostgresTestSupport
import TestSupport
import Testing
@testable import FlagServerCLI

/// The admin commands against a PostgreSQL URI (`--database postgresql://...` or `FLAGSERVER_DATABASE`), on the
/// tests' throw-away cluster: every token command and `check` work there; `backup` and `restore` name the PostgreSQL
/// tools (`copy` has its own tests, `CopyCommandTests`).
@Suite struct PostgresCommandTests {
    @Test func tokensAndCheckWorkAgainstAURIAndBackupAndRestoreNameTheTools() throws {
        let uri = try PostgresTestCluster.shared().createDatabase()
        let created = runMain(["--database", uri, "token", "create", "--name", "ci", "--role", "writer"])
        #expect(created.status == 0, "\(created.stderr)")
        let secret = try #require(created.stdout.split(separator: "\n").first { $0.hasPrefix("sfl_") })
        let listed = runMain(["token", "list"], environment: ["FLAGSERVER_DATABASE": uri])
        #expect(listed.status == 0 && listed.stdout.contains("ci\twriter\t"), "\(listed.stderr)")
        let store = try FlagStore.open(location: uri)
        defer { store.close() }
        #expect(try store.authenticate(secret: String(secret))?.name == "ci")
        let check = runMain(["--database", uri, "check"])
        #expect(check.status == 0, "\(check.stdout) \(check.stderr)")
        let directory = try TemporaryDirectory()
        let backup = runMain(["--database", uri, "backup", "--to", directory.file("copy.sqlite")])
        #expect(backup.status == 1 && backup.stderr.contains("pg_dump"), "\(backup.stderr)")
        let restore = runMain(["--database", uri, "restore", "--from", directory.file("copy.sqlite")])
        #expect(restore.status == 1 && restore.stderr.contains("pg_restore"), "\(restore.stderr)")
    }

    @Test func revokeWorksAgainstAURIAndCheckFindsADamagedVersionThere() throws {
        let uri = try PostgresTestCluster.shared().createDatabase()
        #expect(runMain(["--database", uri, "token", "create", "--name", "ci", "--role", "writer"]).status == 0)
        let revoked = runMain(["--database", uri, "token", "revoke", "--name", "ci"])
        #expect(revoked.status == 0 && revoked.stdout == "revoked token 'ci'\n", "\(revoked.stderr)")
        #expect(runMain(["--database", uri, "token", "list"]).stdout == "NAME\tROLE\tCREATED\tREVOKED\tENVIRONMENTS\n")
        #expect(runMain(["--database", uri, "token", "list", "--all"]).stdout.contains("ci\twriter\t"))
        let missing = runMain(["--database", uri, "token", "revoke", "--name", "ci"])
        #expect(missing.status == 1 && missing.stderr == "flagserver: error: no active token named 'ci'\n")

        let store = try FlagStore.open(location: uri)
        _ = try store.publish(environment: "production", document: document("a"), author: "a")
        store.close()
        #expect(runMain(["--database", uri, "check"]).stdout == "ok\n")
        // As a hand edit with psql would: below the trigger that keeps versions immutable.
        let editor = try Database(postgres: uri)
        try editor.execute("DROP TRIGGER versions_no_update ON versions")
        _ = try editor.run("UPDATE versions SET document = ?", [.blob(document("b"))])
        editor.close()
        let check = runMain(["--database", uri, "check"])
        #expect(check.status == 1 && check.stderr.contains("version 1 of production is damaged"), "\(check.stderr)")
    }
}
