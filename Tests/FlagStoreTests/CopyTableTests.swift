import Foundation
import PostgresTestSupport
import TestSupport
import Testing
@testable import FlagStore

/// The copy's view of one table: matched between the two catalogs, ordered by foreign keys, SQL it runs.
@Suite struct CopyTableTests {
    static func table(_ name: String, references: Set<String> = [], columns: [CopyTable.Column] = [.init(name: "id", kind: .integer)],
                      key: [String] = ["id"]) -> CopyTable {
        CopyTable(name: name, columns: columns, primaryKey: key, references: references, identity: "id")
    }

    @Test func everyTableComesAfterTheTablesItReferences() throws {
        let ordered = try CopyTable.ordered([Self.table("changes", references: ["versions", "environments"]),
                                             Self.table("versions", references: ["environments"]), Self.table("audit"),
                                             Self.table("environments")]).map(\.name)
        #expect(ordered == ["audit", "environments", "versions", "changes"])
        #expect(throws: FlagStoreError.copyMismatch("foreign keys form a cycle among a, b")) {
            try CopyTable.ordered([Self.table("a", references: ["b"]), Self.table("b", references: ["a"])])
        }
    }

    @Test func namesAreQuotedOnlyWhenPlain() throws {
        #expect(try CopyTable.quoted("webhook_attempts") == "\"webhook_attempts\"")
        for bad in ["", "Versions", "a\"b", "x y", "1table", String(repeating: "a", count: 64)] {
            #expect(throws: FlagStoreError.self) { try CopyTable.quoted(bad) }
        }
    }

    @Test func selectsInKeyOrderBytewiseForTextAndInsertsManyRowsPerStatement() {
        let meta = Self.table("meta", columns: [.init(name: "key", kind: .text), .init(name: "value", kind: .integer)], key: ["key"])
        #expect(meta.sourceSelect == "SELECT \"key\", \"value\" FROM \"meta\" ORDER BY \"key\"")
        #expect(meta.targetSelect == "SELECT \"key\", \"value\" FROM \"meta\" ORDER BY \"key\" COLLATE \"C\"")
        #expect(meta.insert(rows: 2) == "INSERT INTO \"meta\" (\"key\", \"value\") VALUES (?, ?), (?, ?)")
        #expect(meta.rowsPerInsert == 1000)
        let wide = Self.table("wide", columns: (0..<60).map { .init(name: "c\($0)", kind: .text) })
        #expect(wide.rowsPerInsert == 500)
    }

    @Test func theStoresSchemaMatchesOnBothEnginesAndADifferenceIsNamed() throws {
        let directory = try TemporaryDirectory()
        let source = try Database(path: directory.file("flags.sqlite"))
        defer { source.close() }
        try Schema.migrate(source, path: "source")
        let target = try Database(postgres: try PostgresTestCluster.shared().createDatabase())
        defer { target.close() }
        try Schema.migrate(target, path: "target")
        let plan = try CopyTable.plan(source: source, target: target)
        #expect(plan.map(\.name) == ["appstore_keys", "appstore_notifications", "audit", "environments", "meta", "tokens", "webhooks", "policies", "versions", "webhook_deliveries",
                                     "changes", "webhook_attempts", "guards"])
        let versions = try #require(plan.first { $0.name == "versions" })
        #expect(versions.identity == "id" && versions.primaryKey == ["id"] && versions.references == ["environments"])
        #expect(versions.columns.first { $0.name == "document" }?.kind == .bytes)
        #expect(plan.first { $0.name == "meta" }?.identity == nil)

        try source.execute("CREATE TABLE later (id INTEGER PRIMARY KEY)")
        #expect(throws: FlagStoreError.copyMismatch("table later: the SQLite file has it, PostgreSQL's schema does not")) {
            try CopyTable.plan(source: source, target: target)
        }
        try target.execute("CREATE TABLE later (id BIGINT PRIMARY KEY, note TEXT)")
        #expect(throws: FlagStoreError.copyMismatch("column later.note is in PostgreSQL's schema only")) {
            try CopyTable.plan(source: source, target: target)
        }
        try source.execute("ALTER TABLE later ADD COLUMN note TEXT")
        try target.execute("ALTER TABLE later ALTER COLUMN note TYPE BOOLEAN USING note::boolean")
        #expect(throws: FlagStoreError.copyMismatch("column later.note is boolean in PostgreSQL, which the copy does not convert")) {
            try CopyTable.plan(source: source, target: target)
        }
    }
}
