import FlagKit
import Foundation
import PostgresTestSupport
import Synchronization
import TestSupport
import Testing
@testable import FlagStore

/// The engines the store's suite runs against: every test that is not about SQLite's file runs on both.
enum StoreEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// A fresh store's location: a file in `directory`, or a new database on the tests' PostgreSQL cluster.
    func location(_ directory: TemporaryDirectory) throws -> String {
        switch self {
        case .sqlite: directory.file("flags.sqlite")
        case .postgres: try PostgresTestCluster.shared().createDatabase()
        }
    }

    /// Every byte the store keeps at `location`: the file and its WAL, or every row of every table as text.
    func everythingStored(_ location: String) throws -> Data {
        switch self {
        case .sqlite:
            var stored = try Data(contentsOf: URL(fileURLWithPath: location))
            if let wal = try? Data(contentsOf: URL(fileURLWithPath: location + "-wal")) { stored.append(wal) }
            return stored
        case .postgres:
            let database = try Database(postgres: location)
            defer { database.close() }
            let tables = try database.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public'") { $0.text(0) }
            var stored = Data()
            for table in tables {
                // Table names come from the catalog, not from input; identifiers cannot be bound.
                for row in try database.query("SELECT t::text FROM \(table) t", row: { $0.text(0) }) { stored.append(Data(row.utf8)) }
            }
            return stored
        }
    }

    /// Opens a fresh store.
    func open(_ directory: TemporaryDirectory, busyTimeout: Duration = .seconds(5)) throws -> FlagStore {
        try FlagStore.open(location: try location(directory), busyTimeout: busyTimeout)
    }
}

/// A small document that differs for each `tag`.
func document(_ tag: String) -> [UInt8] {
    Array("{\"flags\":{},\"cohorts\":{},\"tag\":\"\(tag)\"}".utf8)
}

/// Runs `body` on `count` threads at once and returns their results in order.
func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
    let results = Mutex<[Int: T]>([:])
    DispatchQueue.concurrentPerform(iterations: count) { index in
        let value = body(index)
        results.withLock { $0[index] = value }
    }
    return results.withLock { dictionary in (0..<count).compactMap { dictionary[$0] } }
}

/// Calls `condition` until it holds or `timeout` passes; true when it held.
func poll(timeout: Duration = .seconds(30), _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return try condition()
}

/// The outcome of `body`, with any error as a `FlagStoreError`.
func attempt<T>(_ body: () throws -> T) -> Result<T, FlagStoreError> {
    do { return .success(try body()) } catch { return .failure(FlagStoreError.wrap(error)) }
}

/// Changes stored versions the way a broken disk or a hand edit with sqlite3 would: below the trigger that
/// keeps them immutable, with `sql` run on a connection of its own.
func tamper(_ path: String, _ sql: String, _ arguments: [DatabaseValue] = []) throws {
    let editor = try Database(path: path)
    defer { editor.close() }
    try editor.execute("DROP TRIGGER IF EXISTS versions_no_update")
    _ = try editor.run(sql, arguments)
}

/// A database file as a release with schema 2 (before governance) left it: the first two migrations, a
/// published version, a token and their audit lines written with the old columns.
func makeSchema2Database(_ path: String) throws {
    let database = try SQLiteConnection(path: path)
    defer { database.close() }
    _ = try database.setJournalMode("WAL")
    try SQLiteMigrations.migrate(database, path: path, through: 2)
    try database.run("""
        INSERT INTO versions (environment_id, number, document, content_hash, author, created_at, message)
        VALUES (1, 1, ?, ?, 'seed', 1000, 'first')
        """, [.blob(document("old")), .text(SHA256.hexDigest(document("old")))])
    try database.run("INSERT INTO tokens (name, role, secret_hash, created_at) VALUES ('ops', 'admin', ?, 1000)",
                     [.text(String(repeating: "a", count: 64))])
    try database.run("""
        INSERT INTO audit (at, actor, action, environment, detail) VALUES
            (1000, 'seed', 'publish', 'production', 'version 1'), (1001, 'cli', 'token.create', NULL, 'name ops role admin')
        """)
}

/// A scheduled change of flag `key` in `environment`, due at `applyAt`.
func scheduledChange(_ key: String = "banner", environment: String = "production", applyAt: Int64 = 5_000,
                     author: String = "alice", message: String = "the intro period is over") -> NewChange {
    NewChange(environment: environment, kind: .flags, changeSet: ChangeSet(flags: [key: ["type": "boolean", "default": false]]),
              baseVersion: 0, author: author, message: message, applyAtMilliseconds: applyAt, needsApproval: false,
              touchedFlags: [key])
}

/// A change request of flag `key` that needs approval, optionally with a time.
func requestedChange(_ key: String = "premiumFeaturesLocked", environment: String = "production", applyAt: Int64? = nil,
                     expiresAt: Int64? = nil, author: String = "alice") -> NewChange {
    NewChange(environment: environment, kind: .flags, changeSet: ChangeSet(flags: [key: ["type": "boolean", "default": true]]),
              baseVersion: 0, author: author, message: "paid launch", applyAtMilliseconds: applyAt,
              expiresAtMilliseconds: expiresAt, needsApproval: true, touchedFlags: [key], protectedFlags: [key])
}
