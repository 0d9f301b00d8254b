import FlagStore
import Foundation
import PostgresTestSupport
import Testing
@testable import FlagServerCLI

/// The admin commands against a PostgreSQL URI (`--database postgresql://...` or `FLAGSERVER_DATABASE`), on the
/// tests' throw-away cluster: tokens and `check` work there; `backup` and `restore` name the PostgreSQL tools.
@Suite struct PostgresCommandTests {
    @Test func tokensAndCheckWorkAgainstAURIAndBackupAndRestoreNameTheTools() throws {
        let uri = try PostgresTestCluster.shared().createDatabase()
        let created = runMain(["--database", uri, "token", "create", "--name", "ci", "--role", "writer"])
        #expect(created.status == 0, "\(created.stderr)")
        let secret = try #require(created.stdout.split(separator: "\n").first { $0.hasPrefix("sfl_") })
        let listed = runMain(["token", "list"], environment: ["FLAGSERVER_DATABASE": uri])
        #expect(listed.status == 0 && listed.stdout.contains("ci\twriter\t"), "\(listed.stderr)")
        let store = try FlagStore.open(path: uri)
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
}
