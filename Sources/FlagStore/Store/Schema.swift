/// The store's schema: the same migrations on both engines (`SQLiteMigrations`, `PostgresMigrations`), step for step,
/// so a database of either engine at version n has the same tables, columns and indexes (`SchemaParityTests`).
enum Schema {
    /// One step from version `index` to `index + 1`.
    struct Migration: Sendable {
        /// For errors and logs; the same on both engines.
        let name: String
        /// SQL run inside the migration's transaction, in the engine's dialect.
        let sql: String
    }

    /// The newest schema version this build knows.
    static var latestVersion: Int { SQLiteMigrations.steps.count }

    /// Brings `database` to the newest schema (or to version `count`) with its engine's migrations.
    static func migrate(_ database: Database, path: String, through count: Int = latestVersion) throws {
        switch database {
        case .sqlite(let connection): try SQLiteMigrations.migrate(connection, path: path, through: count)
        case .postgres(let connection): try PostgresMigrations.migrate(connection, path: path, through: count)
        }
    }
}
