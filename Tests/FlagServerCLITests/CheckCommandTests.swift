import FlagStore
import TestSupport
import Testing
@testable import FlagServerCLI

/// `flagserver check`: SQLite's integrity_check, then every version's content hash.
@Suite struct CheckCommandTests {
    @Test func takesNoArguments() {
        #expect(parsedCommand(["check"]) is CheckCommand)
        #expect(usageError(["check", "--fast"])?.message == "unknown option '--fast'")
    }

    @Test func saysOkForAnIntactDatabase() throws {
        let directory = try TemporaryDirectory()
        let store = try FlagStore.open(location: directory.file("flags.sqlite"))
        _ = try store.publish(environment: "production", document: document("a"), author: "a")
        #expect(try CheckCommand().run(store: store, actor: "cli") == "ok\n")
    }

    @Test func reportsADocumentChangedInPlace() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        let store = try FlagStore.open(location: path)
        _ = try store.publish(environment: "production", document: document("a"), author: "a")
        // As a broken disk or a hand edit with sqlite3 would: below the trigger that keeps versions immutable.
        let editor = try Database(path: path)
        try editor.execute("DROP TRIGGER IF EXISTS versions_no_update")
        _ = try editor.run("UPDATE versions SET document = ?", [.blob(document("b"))])
        editor.close()
        // The pages are fine, so integrity_check alone says ok; the content hash does not.
        #expect(try store.integrityCheck() == ["ok"])
        let error = #expect(throws: FlagStoreError.self) { try CheckCommand().run(store: store, actor: "cli") }
        #expect(error?.description.contains("version 1 of production is damaged") == true)
    }
}
