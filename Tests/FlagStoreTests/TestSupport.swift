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
