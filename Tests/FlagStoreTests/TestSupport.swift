import FlagKit
import Foundation
import Synchronization
@testable import FlagStore

/// A fresh directory under the system temp dir, removed when the value is released.
final class TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("flagstore-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A path inside the directory.
    func file(_ name: String) -> String { path + "/" + name }
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
func tamper(_ path: String, _ sql: String, _ arguments: [SQLValue] = []) throws {
    let editor = try Database(path: path)
    defer { editor.close() }
    try editor.execute("DROP TRIGGER IF EXISTS versions_no_update")
    _ = try editor.run(sql, arguments)
}

/// A database file as a release with schema 2 (before governance) left it: the first two migrations, a
/// published version, a token and their audit lines written with the old columns.
func makeSchema2Database(_ path: String) throws {
    let database = try Database(path: path)
    defer { database.close() }
    _ = try database.setJournalMode("WAL")
    try Schema.migrate(database, path: path, through: 2)
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
