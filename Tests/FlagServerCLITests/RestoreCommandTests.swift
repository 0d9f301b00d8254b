import FlagStore
import TestSupport
import Testing
@testable import FlagServerCLI

/// `flagserver restore --from FILE`.
@Suite struct RestoreCommandTests {
    @Test func parsesItsSource() {
        #expect((parsedCommand(["restore", "--from", "/tmp/b.sqlite"]) as? RestoreCommand)?.source == "/tmp/b.sqlite")
        #expect(usageError(["restore"])?.message == "missing option '--from <file>'")
    }

    @Test func replacesTheContentByTheBackupsInANewEpoch() throws {
        let directory = try TemporaryDirectory()
        let store = try FlagStore.open(location: directory.file("flags.sqlite"))
        _ = try store.publish(environment: "production", document: document("a"), author: "a")
        try store.backup(to: directory.file("backup.sqlite"))
        _ = try store.publish(environment: "production", document: document("b"), author: "a")
        let output = try RestoreCommand(source: directory.file("backup.sqlite")).run(store: store, actor: "cli")
        #expect(output.hasPrefix("restored \(directory.file("backup.sqlite")) into \(store.location): versions production="))
        #expect(output.contains(", epoch "))
        #expect(try store.currentVersion(environment: "production")?.document == document("a"))
    }
}
