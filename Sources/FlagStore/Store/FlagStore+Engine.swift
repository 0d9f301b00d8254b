extension FlagStore {
    /// The engine a store runs on, holding what differs between them at the store's level (`SQLiteEngine`,
    /// `PostgresEngine`); what differs per statement is in the connection (`Database`). The store's shared code asks
    /// the engine, never which engine it is: each question is one `switch` here, in the manner of `Database`.
    enum Engine {
        /// A SQLite file, written by one process.
        case sqlite(SQLiteEngine)
        /// A PostgreSQL database, shared by several nodes.
        case postgres(PostgresEngine)

        /// Whether other nodes may write to the store.
        var topology: StoreTopology {
            switch self {
            case .sqlite: .singleProcess
            case .postgres: .shared
            }
        }

        /// Where the store says a token changed (`FlagStore.tokensStampPath`); nil where the database decides.
        var tokensStampPath: String? {
            switch self {
            case .sqlite(let engine): engine.tokensStampPath
            case .postgres: nil
            }
        }

        /// Whether the write connection reaches a database that does not take writes (`FlagStore.checkWriter`).
        func writerIsReadOnly(_ database: Database) throws -> Bool {
            switch self {
            case .sqlite(let engine): try engine.writerIsReadOnly(database)
            case .postgres(let engine): try engine.writerIsReadOnly(database)
            }
        }

        /// `FlagStore.backup(to:)`.
        func backup(to destinationPath: String) throws {
            switch self {
            case .sqlite(let engine):
                try engine.backup(to: destinationPath)
            case .postgres:
                throw FlagStoreError.notSupported(operation: "backup", instead: "use pg_dump (or your PostgreSQL's base backups and WAL archive)")
            }
        }

        /// `FlagStore.restore(from:actor:)`.
        func restore(_ store: FlagStore, from sourcePath: String, actor: String) throws -> Int64 {
            switch self {
            case .sqlite(let engine):
                return try engine.restore(store, from: sourcePath, actor: actor)
            case .postgres:
                throw FlagStoreError.notSupported(
                    operation: "restore", instead: "restore with pg_restore (or point-in-time recovery) while every node is stopped, "
                        + "then start a new epoch so apps accept the restored numbers")
            }
        }

        /// `FlagStore.integrityCheck()` on the read connection.
        func integrityCheck(_ database: Database) throws -> [String] {
            switch self {
            case .sqlite(let engine): try engine.integrityCheck(database)
            case .postgres(let engine): try engine.integrityCheck(database)
            }
        }

        /// `FlagStore.startupCheck()`: PostgreSQL has no per-table `integrity_check`, so the same answer as
        /// `integrityCheck()` there.
        func startupCheck(_ store: FlagStore) throws -> [String] {
            switch self {
            case .sqlite(let engine): try engine.startupCheck(store)
            case .postgres: try store.integrityCheck()
            }
        }

        /// `FlagStore.writeProblem()`: PostgreSQL's disk is the server's; a full or read-only one shows as failing
        /// writes (503).
        func writeProblem() -> String? {
            switch self {
            case .sqlite(let engine): engine.writeProblem()
            case .postgres: nil
            }
        }

        /// `FlagStore.makeListener()`.
        func makeListener() throws -> StoreListener {
            switch self {
            case .sqlite:
                throw FlagStoreError.notSupported(operation: "listening for other nodes", instead: "SQLite has one writing process")
            case .postgres(let engine):
                try engine.makeListener()
            }
        }

        /// `FlagStore.makeJobLease()`: nil on SQLite, where the one process always runs the jobs.
        func makeJobLease() throws -> JobLease? {
            switch self {
            case .sqlite: nil
            case .postgres(let engine): try engine.makeJobLease()
            }
        }
    }

    /// A listener for other nodes' publishes (PostgreSQL; `notSupported` on SQLite, where one process writes).
    public func makeListener() throws -> StoreListener {
        try engine.makeListener()
    }

    /// The jobs' lease on PostgreSQL; nil on SQLite, where the one process always runs them.
    public func makeJobLease() throws -> JobLease? {
        try engine.makeJobLease()
    }
}
