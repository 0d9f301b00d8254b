import CSQLite
import Foundation
import PostgresTestSupport
import TestSupport
import Testing
@testable import FlagStore

/// Opening (and refusing to open), environments, audit.
@Suite struct FlagStoreTests {
    @Test func openCreatesParentDirectories() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("data/nested/flags.sqlite")
        let store = try FlagStore.open(location: path)
        try store.ping()
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func fileOfRandomBytesIsRefusedClearly() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        var generator = SystemRandomNumberGenerator()
        let garbage = (0..<8192).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(garbage)))
        let error = try #require(throws: FlagStoreError.self) { try FlagStore.open(location: path) }
        guard case .notADatabase(let reportedPath, let cause) = error else {
            Issue.record("expected notADatabase, got \(error)")
            return
        }
        #expect(reportedPath == path)
        #expect(cause.resultCode == SQLITE_NOTADB)
        #expect(error.description.contains("not a usable SQLite database"))
        // Nothing was lost: the file is untouched.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(garbage))
    }

    @Test func truncatedDatabaseIsRefusedOrReadableNeverACrash() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        let store = try FlagStore.open(location: path)
        for index in 0..<50 {
            _ = try store.publish(environment: "production", document: Array(repeating: UInt8(index), count: 4000), author: "a")
        }
        store.close()
        // Keep the valid header page, garble everything after it, and drop the WAL.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        for index in 100..<bytes.count { bytes[index] = UInt8(truncatingIfNeeded: index &* 7) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try? FileManager.default.removeItem(atPath: path + "-wal")
        try? FileManager.default.removeItem(atPath: path + "-shm")
        do {
            let reopened = try FlagStore.open(location: path)
            // Opened (the header is intact): the damage must then show, as a failed check or a corruption error.
            do {
                #expect(try reopened.integrityCheck() != ["ok"])
            } catch FlagStoreError.database(let cause) {
                #expect(cause.isCorruption)
            }
        } catch let error as FlagStoreError {
            switch error {
            case .notADatabase, .cannotOpen: break
            default: Issue.record("unexpected \(error)")
            }
        }
    }

    @Test func parentThatIsAFileIsRefusedClearly() throws {
        let directory = try TemporaryDirectory()
        let blocker = directory.file("not-a-directory")
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8)))
        let error = try #require(throws: FlagStoreError.self) { try FlagStore.open(location: blocker + "/data/flags.sqlite") }
        guard case .cannotCreateDirectory(let path, _) = error else {
            Issue.record("expected cannotCreateDirectory, got \(error)")
            return
        }
        #expect(path == blocker + "/data")
    }

    @Test func directoryAtTheDatabasePathIsRefusedClearly() throws {
        let directory = try TemporaryDirectory()
        let error = try #require(throws: FlagStoreError.self) { try FlagStore.open(location: directory.path) }
        guard case .cannotOpen(_, let cause) = error else {
            Issue.record("expected cannotOpen, got \(error)")
            return
        }
        #expect(cause.resultCode == SQLITE_CANTOPEN)
    }

    @Test(.enabled(if: geteuid() != 0, "root ignores file permissions"))
    func unwritableDirectoryIsRefusedClearly() throws {
        let directory = try TemporaryDirectory()
        let locked = directory.file("locked")
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o500])
        defer { chmod(locked, 0o700) }
        #expect(throws: FlagStoreError.self) { try FlagStore.open(location: locked + "/flags.sqlite") }
    }

    @Test func locationWithoutWALIsRefusedByCheckingThePragmaResult() throws {
        // ":memory:" keeps journal_mode=memory whatever is asked: the answer, not the request, decides.
        #expect(throws: FlagStoreError.walUnavailable(path: ":memory:", journalMode: "memory")) {
            try FlagStore.open(location: ":memory:")
        }
        #expect(throws: FlagStoreError.invalidArgument(name: "path", reason: "must not be empty")) {
            try FlagStore.open(location: "")
        }
    }

    @Test(arguments: StoreEngine.allCases) func defaultEnvironmentsExist(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        #expect(try store.environments() == ["production", "staging"])
        #expect(try store.currentVersion(environment: "production") == nil)
        #expect(try store.latestVersions().isEmpty)
    }

    @Test(arguments: StoreEngine.allCases) func environmentCanBeCreatedOnceWithAValidName(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        try store.createEnvironment(name: "qa-2", actor: "ops")
        #expect(try store.environments() == ["production", "qa-2", "staging"])
        #expect(throws: FlagStoreError.environmentExists("qa-2")) { try store.createEnvironment(name: "qa-2", actor: "ops") }
        for bad in ["", "QA", "-x", "a b", "ä", String(repeating: "a", count: 64)] {
            #expect(throws: FlagStoreError.invalidEnvironmentName(bad)) { try store.createEnvironment(name: bad, actor: "ops") }
        }
        #expect(try store.environments() == ["production", "qa-2", "staging"])
        #expect(try store.auditEntries().first?.action == "environment.create")
    }

    @Test(arguments: StoreEngine.allCases) func unknownEnvironmentListsTheKnownOnes(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        #expect(throws: FlagStoreError.unknownEnvironment("prod", known: ["production", "staging"])) {
            try store.publish(environment: "prod", document: document("a"), author: "alice")
        }
        #expect(throws: FlagStoreError.unknownEnvironment("prod", known: ["production", "staging"])) {
            try store.versions(environment: "prod")
        }
    }

    /// `checkWriter()` (`/readyz` after a commit the database could not take): passes while the write connection reaches a
    /// database that takes writes, throws otherwise: a closed store; on PostgreSQL a database set read-only (as a
    /// demoted primary), whose refusal otherwise came only with the next commit, and passes again once it is not.
    @Test(arguments: StoreEngine.allCases) func checkWriterPassesOnlyWhileTheDatabaseTakesWrites(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let location = try engine.location(directory)
        let store = try FlagStore.open(location: location)
        try store.checkWriter()
        if engine == .postgres {
            let postgres = try PostgresTestCluster.shared()
            let name = try #require(location.split(separator: "?").first?.split(separator: "/").last)
            let endSessions = "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)' AND pid <> pg_backend_pid()"
            try postgres.psql("ALTER DATABASE \(name) SET default_transaction_read_only = on")
            try postgres.psql(endSessions)
            // The lost session is opened again (once, as a read does) and found read-only.
            let error = try #require(throws: FlagStoreError.self) { try store.checkWriter() }
            #expect("\(error)".contains("does not take writes"), "\(error)")
            #expect(throws: FlagStoreError.self) { try store.publish(environment: "production", document: document("a"), author: "a") }
            try postgres.psql("ALTER DATABASE \(name) RESET default_transaction_read_only")
            try postgres.psql(endSessions)
            try store.checkWriter()
            #expect(try store.publish(environment: "production", document: document("a"), author: "a").record.number == 1)
        }
        store.close()
        #expect(throws: FlagStoreError.self) { try store.checkWriter() }
    }

    @Test(arguments: StoreEngine.allCases) func closedStoreFailsWithAnErrorNotACrash(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory()
        let store = try engine.open(directory)
        store.close()
        #expect(throws: FlagStoreError.self) { try store.ping() }
        #expect(throws: FlagStoreError.self) { try store.publish(environment: "production", document: document("a"), author: "a") }
    }
}
