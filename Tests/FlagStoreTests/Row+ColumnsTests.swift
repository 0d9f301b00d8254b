import CSQLite
import TestSupport
import Testing
@testable import FlagStore

/// Reading rows by column name.
@Suite struct RowColumnsTests {
    @Test func readsEachTypeByNameAndAlias() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("t.sqlite"))
        let row = try database.queryFirst("""
            SELECT 7 AS number, NULL AS empty, 'text' AS words, x'0102' AS bytes, 1 AS yes
            """) { row in
            (try row.int64("number"), try row.optionalInt64("empty"), try row.int("number"), try row.optionalInt("empty"),
             try row.text("words"), try row.optionalText("empty"), try row.blob("bytes"), try row.bool("yes"),
             try row.isNull("empty"))
        }
        let values = try #require(row)
        #expect(values.0 == 7 && values.1 == nil && values.2 == 7 && values.3 == nil)
        #expect(values.4 == "text" && values.5 == nil && values.6 == [1, 2] && values.7 && values.8)
    }

    @Test func anUnknownNameIsAnErrorWithTheSQL() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("t.sqlite"))
        let error = try #require(throws: DatabaseError.self) {
            _ = try database.queryFirst("SELECT 1 AS one") { try $0.int("two") }
        }
        #expect(error.resultCode == SQLITE_RANGE && error.sql == "SELECT 1 AS one" && error.message.contains("two"))
    }

    /// The name map is built once per prepared statement and stays right when the cached statement runs again.
    @Test func aCachedStatementKeepsItsNames() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("t.sqlite"))
        for value in 1...3 {
            #expect(try database.queryFirst("SELECT ? AS b, 0 AS a", [.integer(Int64(value))]) { try $0.int("b") } == value)
        }
    }
}
