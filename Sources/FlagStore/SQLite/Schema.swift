/// The schema, as migrations applied in order; `PRAGMA user_version` counts how many have run.
///
/// Never edit a migration that has shipped: append a new one.
enum Schema {
    /// One step from version `index` to `index + 1`.
    struct Migration: Sendable {
        /// For errors and logs.
        let name: String
        /// SQL run inside the migration's transaction.
        let sql: String
    }

    /// Every migration; `migrations.count` is the newest schema version this build knows.
    static let migrations: [Migration] = [
        Migration(name: "environments, versions, tokens, audit", sql: """
            CREATE TABLE environments (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                created_at INTEGER NOT NULL
            );
            CREATE TABLE versions (
                id INTEGER PRIMARY KEY,
                environment_id INTEGER NOT NULL REFERENCES environments(id),
                number INTEGER NOT NULL CHECK (number >= 1),
                document BLOB NOT NULL,
                content_hash TEXT NOT NULL CHECK (length(content_hash) = 64),
                author TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                message TEXT NOT NULL,
                rolled_back_from INTEGER CHECK (rolled_back_from IS NULL OR rolled_back_from < number),
                UNIQUE (environment_id, number)
            );
            -- Versions are history: never changed, never deleted.
            CREATE TRIGGER versions_no_update BEFORE UPDATE ON versions
                BEGIN SELECT RAISE(ABORT, 'versions are immutable'); END;
            CREATE TRIGGER versions_no_delete BEFORE DELETE ON versions
                BEGIN SELECT RAISE(ABORT, 'versions are never deleted'); END;
            CREATE TABLE tokens (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                role TEXT NOT NULL CHECK (role IN ('reader', 'writer', 'admin')),
                secret_hash TEXT NOT NULL UNIQUE CHECK (length(secret_hash) = 64),
                created_at INTEGER NOT NULL,
                revoked_at INTEGER
            );
            -- A name is unique among active tokens; a revoked name may be reused.
            CREATE UNIQUE INDEX tokens_active_name ON tokens(name) WHERE revoked_at IS NULL;
            CREATE TABLE audit (
                id INTEGER PRIMARY KEY,
                at INTEGER NOT NULL,
                actor TEXT NOT NULL,
                action TEXT NOT NULL,
                environment TEXT,
                detail TEXT NOT NULL
            );
            INSERT INTO environments (name, created_at) VALUES
                ('production', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)),
                ('staging', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
            """),
        // The epoch orders this database's version numbers against another's: a restore from a backup starts a
        // new, larger epoch, so apps that hold a higher version of the old line accept the restored documents.
        Migration(name: "meta: epoch", sql: """
            CREATE TABLE meta (
                key TEXT PRIMARY KEY,
                value INTEGER NOT NULL
            );
            INSERT INTO meta (key, value) VALUES ('epoch', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
            """),
        // Issue #18 (docs/governance.md): scoped tokens, the audit's outcome columns, changes, policies, webhooks.
        governance,
    ]

    /// Brings `database` to the newest schema, one transaction per migration.
    ///
    /// The version is re-read inside each write transaction, so two processes opening a fresh file at
    /// once do not both run the same migration.
    ///
    /// `count` stops after that many migrations, so tests can build a file as an older release left it.
    static func migrate(_ database: Database, path: String, through count: Int = migrations.count) throws {
        if database.isPostgres { return try migratePostgres(database, path: path, through: count) }
        let found = try database.userVersion()
        guard found <= migrations.count else {
            throw FlagStoreError.schemaTooNew(path: path, found: found, supported: migrations.count)
        }
        for (index, migration) in migrations.enumerated() where index >= found && index < count {
            try database.transaction(.immediate) {
                guard try database.userVersion() == index else { return }
                do {
                    try database.execute(migration.sql)
                } catch let error as DatabaseError {
                    throw DatabaseError(extendedResultCode: error.extendedResultCode,
                                        message: "migration \(index + 1) (\(migration.name)): \(error.message)",
                                        sql: error.sql)
                }
                try database.setUserVersion(index + 1)
            }
        }
    }
}
