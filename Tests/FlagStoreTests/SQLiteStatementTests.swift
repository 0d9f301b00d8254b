import Foundation
import Testing
@testable import FlagStore

/// Binds, column reads and the statement cache.
@Suite struct SQLiteStatementTests {
    @Test func everyStorageClassRoundTrips() throws {
        let database = try Database(path: ":memory:")
        try database.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n)")
        let blob: [UInt8] = [0, 1, 2, 255, 0]
        try database.run("INSERT INTO t VALUES (?, ?, ?, ?, ?)",
                         [.integer(Int64.min), .real(2.5), .text("Grüße ✓"), .blob(blob), .null])
        let row = try #require(try database.queryFirst("SELECT i, r, s, b, n FROM t") { row in
            (row.int64(0), row.double(1), row.text(2), row.blob(3), row.isNull(4), row.optionalText(4))
        })
        #expect(row.0 == Int64.min)
        #expect(row.1 == 2.5)
        #expect(row.2 == "Grüße ✓")
        #expect(row.3 == blob)
        #expect(row.4)
        #expect(row.5 == nil)
    }

    @Test func emptyBlobStaysABlobNotNull() throws {
        let database = try Database(path: ":memory:")
        try database.execute("CREATE TABLE t (b BLOB)")
        try database.run("INSERT INTO t VALUES (?)", [.blob([])])
        #expect(try database.queryFirst("SELECT typeof(b), length(b) FROM t") { "\($0.text(0)) \($0.int(1))" } == "blob 0")
    }

    @Test func textWithEmbeddedNulIsKeptWhole() throws {
        let database = try Database(path: ":memory:")
        let text = "a\u{0}b"
        #expect(try database.queryFirst("SELECT length(CAST(? AS BLOB)), ?", [.text(text), .text(text)]) {
            "\($0.int(0)) \($0.text(1) == text)"
        } == "3 true")
        #expect(try database.queryFirst("SELECT ?", [.text("")]) { $0.isNull(0) ? "null" : $0.text(0) } == "")
    }

    @Test func cachedStatementIsReusedWithFreshBindings() throws {
        let database = try SQLiteConnection(path: ":memory:")
        let first = try database.statement("SELECT ?")
        let second = try database.statement("SELECT ?")
        #expect(first === second)
        #expect(try database.queryFirst("SELECT ?", [.integer(1)]) { $0.int(0) } == 1)
        #expect(try database.queryFirst("SELECT ?", [.text("x")]) { $0.text(0) } == "x")
    }

    @Test func optionalHelpersMapNilToNull() throws {
        let database = try Database(path: ":memory:")
        #expect(try database.queryFirst("SELECT ? IS NULL, ? IS NULL", [.optionalInteger(nil), .optionalText(nil)]) {
            $0.int(0) + $0.int(1)
        } == 2)
        #expect(try database.queryFirst("SELECT ?", [.optionalInteger(5)]) { $0.optionalInt(0) } == 5)
    }
}
