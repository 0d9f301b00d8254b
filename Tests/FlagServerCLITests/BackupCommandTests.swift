import FlagStore
import TestSupport
import Testing
@testable import FlagServerCLI

/// `flagserver backup --to FILE`.
@Suite struct BackupCommandTests {
    @Test func parsesItsTarget() {
        #expect((parsedCommand(["backup", "--to", "/tmp/x.sqlite"]) as? BackupCommand)?.destination == "/tmp/x.sqlite")
        #expect(usageError(["backup"])?.message == "missing option '--to <file>'")
        #expect(usageError(["backup", "--to"])?.message == "option '--to' needs a value <file>")
    }

    @Test func writesACopyThatOpensWithTheSameDocument() throws {
        let directory = try TemporaryDirectory()
        let store = try FlagStore.open(location: directory.file("flags.sqlite"))
        _ = try store.publish(environment: "production", document: document("a"), author: "a")
        let copy = directory.file("copy.sqlite")
        #expect(try BackupCommand(destination: copy).run(store: store, actor: "cli") == "backup written to \(copy)\n")
        #expect(try FlagStore.open(location: copy).currentVersion(environment: "production")?.document == document("a"))
        #expect(throws: FlagStoreError.backupDestinationExists(path: copy)) { try BackupCommand(destination: copy).run(store: store, actor: "cli") }
    }
}
