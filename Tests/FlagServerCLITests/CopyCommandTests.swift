import CommandLineKit
import FlagStore
import Foundation
import PostgresTestSupport
import TestSupport
import Testing
@testable import FlagServerCLI

/// `flagserver copy --to URI`: parsing and usage errors on arrays, and the copy through `FlagServer.main` from a
/// real SQLite file into databases of the tests' throw-away PostgreSQL cluster.
@Suite struct CopyCommandTests {
    @Test func parsesItsTarget() {
        #expect((parsedCommand(["copy", "--to", "postgresql:///flags"]) as? CopyCommand)?.target == "postgresql:///flags")
        #expect((parsedCommand(["--database", "a.sqlite", "copy", "--to", "postgres://db/flags"]) as? CopyCommand)?.target
                == "postgres://db/flags")
    }

    @Test(arguments: [
        (["copy"], [:], "missing option '--to <uri>'"),
        (["copy", "--to", "backup.sqlite"], [:], "--to must be a PostgreSQL URI (postgresql://... or postgres://...)"),
        (["copy", "--to", "postgresql:///a", "--to", "postgresql:///b"], [:], "option '--to' given more than once"),
        (["--database", "postgresql:///a", "copy", "--to", "postgresql:///b"], [:],
         "copy reads a SQLite file, but --database names PostgreSQL; give the SQLite file with --database PATH"),
        (["copy", "--to", "postgresql:///b"], ["FLAGSERVER_DATABASE": "postgres://db/a"],
         "copy reads a SQLite file, but FLAGSERVER_DATABASE names PostgreSQL; give the SQLite file with --database PATH"),
    ])
    func usageErrorsExit64WithTheUsageLine(arguments: [String], environment: [String: String], message: String) {
        let result = runMain(arguments, environment: environment)
        #expect(result.status == 64 && result.stdout.isEmpty)
        #expect(result.stderr == "flagserver: error: \(message)\nUsage: flagserver copy --to <uri>\nSee 'flagserver copy --help'.\n")
    }

    @Test func helpSaysWhatItCopiesAndThatTheTargetMustBeEmpty() {
        let help = runMain(["copy", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: flagserver copy --to <uri>"))
        #expect(help.stdout.contains("must be empty") && help.stdout.contains("Stop the server first"))
        #expect(runMain(["--help"]).stdout.contains("\n  copy               Copy the SQLite database into an empty PostgreSQL database"))
    }

    @Test func copiesARealFileAndTheAdminCommandsThenWorkOnTheURI() throws {
        let directory = try TemporaryDirectory()
        let fixture = try CopyFixture.make(path: directory.file("flags.sqlite"), versions: 5)
        let uri = try PostgresTestCluster.shared().createDatabase()
        let copied = runMain(["--database", fixture.path, "copy", "--to", uri])
        #expect(copied.status == 0 && copied.stderr.isEmpty, "\(copied.stderr)")
        let lines = copied.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("copied 23 versions in 4 environments (epoch ") == true, "\(copied.stdout)")
        #expect(lines.first?.hasSuffix("), 6 tokens (2 revoked), \(try Self.count(fixture.path, "audit")) audit records, 11 changes, "
            + "1 policy, 3 webhooks, 9 webhook deliveries with 12 attempts, 2 App Store notifications with the subscription hash's key, "
            + "2 guards")
            == true, "\(copied.stdout)")
        #expect(lines.count == 4 && lines[1] == "from \(fixture.path) into \(FlagStore.displayName(of: uri));")
        #expect(lines[2].hasPrefix("every row compared, every version's hash verified (23 of 23), in "))
        #expect(lines[3] == "start every node with --database '\(FlagStore.displayName(of: uri))' (with the password, if it has one)")

        // Every admin command against the URI sees the copy.
        let listed = runMain(["--database", uri, "token", "list", "--all"])
        #expect(listed.status == 0 && listed.stdout.split(separator: "\n").count == 7, "\(listed.stdout)")
        #expect(runMain(["--database", uri, "check"]).stdout == "ok\n")
        #expect(runMain(["--database", uri, "token", "revoke", "--name", "ci"]).stdout == "revoked token 'ci'\n")
        let store = try FlagStore.open(location: uri)
        defer { store.close() }
        #expect(try store.authenticate(secret: try #require(fixture.activeSecrets["admin"]))?.name == "admin")
        #expect(try store.authenticate(secret: try #require(fixture.activeSecrets["ci"])) == nil)

        // A second copy into the same database is refused, exit 1, one line; nothing changes.
        let again = runMain(["--database", fixture.path, "copy", "--to", uri])
        #expect(again.status == 1 && again.stdout.isEmpty)
        #expect(again.stderr.hasPrefix("flagserver: error: refusing to copy: the PostgreSQL database \(FlagStore.displayName(of: uri)) "
            + "is not empty (it holds appstore_keys: 1 row, appstore_notifications: 2 rows, audit: "), "\(again.stderr)")
        #expect(again.stderr.hasSuffix("; copy needs an empty database (createdb a new one) and wrote nothing\n"))
        #expect(try store.versions(environment: "qa", limit: 100).count == 6)
    }

    @Test func aMissingOrDamagedSourceIsOneErrorLineAndExitOne() throws {
        let directory = try TemporaryDirectory()
        let uri = try PostgresTestCluster.shared().createDatabase()
        let missing = runMain(["--database", directory.file("none.sqlite"), "copy", "--to", uri])
        #expect(missing.status == 1 && missing.stderr == "flagserver: error: no SQLite database at \(directory.file("none.sqlite")) "
            + "(name it with --database PATH)\n")
        #expect(!FileManager.default.fileExists(atPath: directory.file("none.sqlite")), "nothing created in its place")
        #expect(runMain(["--database", directory.path, "copy", "--to", uri]).status == 1)

        let path = directory.file("flags.sqlite")
        let store = try FlagStore.open(location: path)
        _ = try store.publish(environment: "production", document: document("a"), author: "a")
        store.close()
        let editor = try Database(path: path)
        try editor.execute("DROP TRIGGER IF EXISTS versions_no_update")
        _ = try editor.run("UPDATE versions SET document = ?", [.blob(document("b"))])
        editor.close()
        let damaged = runMain(["--database", path, "copy", "--to", uri])
        #expect(damaged.status == 1)
        #expect(damaged.stderr.hasPrefix("flagserver: error: refusing to copy \(path): version 1 of production is damaged"), "\(damaged.stderr)")
        let target = try Database(postgres: uri)
        defer { target.close() }
        #expect(try target.queryFirst("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") { $0.int(0) } == 0)
    }

    @Test func anUnreachableTargetIsOneErrorLineWithThePasswordMasked() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        try FlagStore.open(location: path).close()
        let result = runMain(["--database", path, "copy", "--to", "postgresql://flags:s3cret@127.0.0.1:1/flags?connect_timeout=2"])
        #expect(result.status == 1 && result.stderr.hasPrefix("flagserver: error: cannot open database postgresql://flags:***@127.0.0.1:1/"))
        #expect(!result.stderr.contains("s3cret"))
    }

    /// Rows of `table` in the SQLite file at `path`.
    static func count(_ path: String, _ table: String) throws -> Int {
        let database = try Database(path: path, mode: .readOnly)
        defer { database.close() }
        return try database.queryFirst("SELECT count(*) FROM \(table)") { $0.int(0) } ?? -1
    }
}
