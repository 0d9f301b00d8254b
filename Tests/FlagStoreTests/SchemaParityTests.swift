import PostgresTestSupport
import TestSupport
import Testing
@testable import FlagStore

/// Both engines' migrations build the same schema, read back from each engine's own catalog: the same tables, the
/// same columns (names, nullability, and types through `typeMapping`), primary keys, unique constraints and indexes
/// (names, columns, uniqueness, partial or not). The store's shared SQL and the copy from SQLite into PostgreSQL
/// rely on it.
@Suite struct SchemaParityTests {
    /// SQLite's declared column type and the PostgreSQL type `PostgresMigrations` gives the same column: every
    /// integer is `BIGINT` (SQLite's INTEGER holds 64 bits), `BLOB` is `BYTEA`, `TEXT` is `text`. A declared type
    /// not listed here fails the comparison by name.
    static let typeMapping = ["INTEGER": "bigint", "TEXT": "text", "BLOB": "bytea"]

    /// PostgreSQL's own bookkeeping: the schema version, which SQLite keeps in `PRAGMA user_version`.
    static let postgresOnlyTables: Set<String> = ["flagstore_schema"]

    @Test func bothEnginesHaveTheSameMigrationSteps() {
        #expect(SQLiteMigrations.steps.map(\.name) == PostgresMigrations.steps.map(\.name))
        #expect(Schema.latestVersion == SQLiteMigrations.steps.count)
    }

    @Test func bothEnginesBuildTheSameTablesColumnsKeysAndIndexes() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        try FlagStore.open(location: path).close()
        let sqlite = try SQLiteConnection(path: path, mode: .readOnly)
        defer { sqlite.close() }
        let uri = try PostgresTestCluster.shared().createDatabase()
        try FlagStore.open(location: uri).close()
        let postgres = try PostgresConnection(conninfo: uri)
        defer { postgres.close() }

        let sqliteSchema = try Self.schema(of: sqlite)
        let postgresSchema = try Self.schema(of: postgres)
        #expect(sqliteSchema.contains("table versions") && sqliteSchema.contains { $0.hasPrefix("index audit_action ") })
        #expect(sqliteSchema.filter { !postgresSchema.contains($0) } == [], "SQLite only")
        #expect(postgresSchema.filter { !sqliteSchema.contains($0) } == [], "PostgreSQL only")
    }

    /// One line per table, column, key and index, sorted; SQLite's types through `typeMapping`. An `INTEGER PRIMARY
    /// KEY` column (the rowid) counts as NOT NULL, as every primary key column is on PostgreSQL.
    static func schema(of database: SQLiteConnection) throws -> [String] {
        var lines: [String] = []
        let tables = try database.query(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'") { $0.text(0) }
        for table in tables {
            lines.append("table \(table)")
            let columns = try database.query("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?) ORDER BY cid",
                                             [.text(table)]) { (name: $0.text(0), type: $0.text(1), notNull: $0.int(2) != 0, key: $0.int(3)) }
            for column in columns {
                let type = typeMapping[column.type.uppercased()] ?? "unmapped SQLite type \(column.type)"
                lines.append("column \(table).\(column.name) \(type)" + (column.notNull || column.key > 0 ? " not null" : ""))
            }
            let key = columns.filter { $0.key > 0 }.sorted { $0.key < $1.key }.map(\.name)
            if !key.isEmpty { lines.append("primary key \(table)(\(key.joined(separator: ",")))") }
            let indexes = try database.query("SELECT name, \"unique\", origin, partial FROM pragma_index_list(?)", [.text(table)]) {
                (name: $0.text(0), unique: $0.int(1) != 0, origin: $0.text(2), partial: $0.int(3) != 0)
            }
            for index in indexes where index.origin != "pk" {
                let columns = try database.query("SELECT name FROM pragma_index_info(?) ORDER BY seqno", [.text(index.name)]) { $0.text(0) }
                    .joined(separator: ",")
                lines.append(index.origin == "u" ? "unique \(table)(\(columns))"
                    : "index \(index.name) on \(table)(\(columns))" + (index.unique ? " unique" : "") + (index.partial ? " partial" : ""))
            }
        }
        return lines.sorted()
    }

    /// The same lines from PostgreSQL's catalog (`information_schema`, `pg_constraint`, `pg_index`); indexes that back
    /// a primary key or unique constraint are those constraints' lines.
    static func schema(of database: PostgresConnection) throws -> [String] {
        var lines: [String] = []
        for table in try database.query("""
            SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
            """, row: { $0.text(0) }) where !postgresOnlyTables.contains(table) {
            lines.append("table \(table)")
        }
        for column in try database.query("""
            SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = current_schema()
            """, row: { (table: $0.text(0), name: $0.text(1), type: $0.text(2), nullable: $0.text(3) == "YES") })
        where !postgresOnlyTables.contains(column.table) {
            lines.append("column \(column.table).\(column.name) \(column.type)" + (column.nullable ? "" : " not null"))
        }
        for constraint in try database.query("""
            SELECT t.relname, c.contype,
                   (SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM unnest(c.conkey) WITH ORDINALITY k(attnum, n)
                    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum)
            FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
            WHERE t.relnamespace = current_schema()::regnamespace AND c.contype IN ('p', 'u')
            """, row: { (table: $0.text(0), kind: $0.text(1), columns: $0.text(2)) })
        where !postgresOnlyTables.contains(constraint.table) {
            lines.append((constraint.kind == "p" ? "primary key " : "unique ") + "\(constraint.table)(\(constraint.columns))")
        }
        for index in try database.query("""
            SELECT i.relname, t.relname, x.indisunique, x.indpred IS NOT NULL,
                   (SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(attnum, n)
                    JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum)
            FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
            WHERE t.relnamespace = current_schema()::regnamespace
              AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid AND c.conrelid = t.oid
                              AND c.contype IN ('p', 'u'))
            """, row: { (name: $0.text(0), table: $0.text(1), unique: $0.int(2) != 0, partial: $0.int(3) != 0, columns: $0.text(4)) })
        where !postgresOnlyTables.contains(index.table) {
            lines.append("index \(index.name) on \(index.table)(\(index.columns))" + (index.unique ? " unique" : "")
                + (index.partial ? " partial" : ""))
        }
        return lines.sorted()
    }
}
