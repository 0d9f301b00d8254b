/// What the store does its own way on PostgreSQL (`FlagStore.Engine.postgres`): connecting (the URI's password kept
/// out of logs), the other nodes (their publishes heard through `StoreListener`, the jobs' lease), and the operations
/// the server's own tools do instead (backup, restore, `integrity_check`, the disk).
struct PostgresEngine {
    /// The connection string as given, for connections of their own (`StoreListener`, `JobLease`); may hold a password.
    let conninfo: String
    /// The session of the store's write connection, whose commits' notifications this node's listener skips.
    let writerSession: PostgresSession
    /// How long any call waits for the server (`PostgresConnection`), for the listener's and the lease's too.
    let timeout: Duration

    /// Whether `location` names PostgreSQL (`postgresql://` or `postgres://`, as libpq accepts) rather than a file.
    static func isURI(_ location: String) -> Bool {
        location.hasPrefix("postgresql://") || location.hasPrefix("postgres://")
    }

    /// Connects to PostgreSQL at `uri` (a writer and a reader connection) and migrates the schema under the store's
    /// write lock, so several nodes starting at once on an empty database migrate it once (`FlagStore.openPostgres`).
    static func open(uri: String, lockTimeout: Duration, timeout: Duration) throws -> FlagStore {
        let shown = displayName(of: uri)
        func connect(_ configure: (PostgresConnection) throws -> Void) throws -> PostgresConnection {
            do {
                let connection = try PostgresConnection(conninfo: uri, lockTimeout: lockTimeout, timeout: timeout)
                try configure(connection)
                return connection
            } catch let error as DatabaseError {
                throw FlagStoreError.cannotOpen(location: shown, cause: error)
            }
        }
        let writer = try connect { try PostgresMigrations.migrate($0, path: shown) }
        let reader = try connect { _ = try PostgresMigrations.version($0) }
        let engine = PostgresEngine(conninfo: uri, writerSession: writer.session, timeout: timeout)
        return FlagStore(location: shown, engine: .postgres(engine), writer: .postgres(writer), reader: .postgres(reader))
    }

    /// `location` fit for logs and errors: a PostgreSQL URI's password (`user:secret@` or `password=`) masked.
    static func displayName(of location: String) -> String {
        guard isURI(location), let scheme = location.range(of: "://") else { return location }
        var text = location
        let authorityEnd = text[scheme.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? text.endIndex
        if let at = text[scheme.upperBound..<authorityEnd].lastIndex(of: "@"),
           let colon = text[scheme.upperBound..<at].firstIndex(of: ":") {
            text.replaceSubrange(text.index(after: colon)..<at, with: "***")
        }
        if let query = text.firstIndex(of: "?") {
            let parameters = text[text.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false)
                .map { $0.hasPrefix("password=") ? "password=***" : String($0) }
            text = String(text[...query]) + parameters.joined(separator: "&")
        }
        return text
    }

    /// Whether the session's `transaction_read_only` is on: a standby, or a server set read-only, has it on
    /// (SQLSTATE 25006 otherwise comes only with the next commit).
    func writerIsReadOnly(_ database: Database) throws -> Bool {
        try database.queryFirst("SELECT current_setting('transaction_read_only')") { $0.text(0) } != "off"
    }

    /// There is no `integrity_check`: `["ok"]` once the server answers and the schema is this build's (page
    /// checksums, `amcheck` and `pg_amcheck` are the server's own tools).
    func integrityCheck(_ database: Database) throws -> [String] {
        let version = try PostgresMigrations.version(database)
        return version == Schema.latestVersion ? ["ok"] : ["schema version \(version), expected \(Schema.latestVersion)"]
    }

    /// A listener for other nodes' publishes and changes, on a connection of its own.
    func makeListener() throws -> StoreListener {
        do { return try StoreListener(conninfo: conninfo, ownSession: writerSession, timeout: timeout) } catch { throw FlagStoreError.wrap(error) }
    }

    /// The jobs' lease, on a connection of its own.
    func makeJobLease() throws -> JobLease {
        do { return try JobLease(conninfo: conninfo, timeout: timeout) } catch { throw FlagStoreError.wrap(error) }
    }
}

extension FlagStore {
    /// Whether `location` names PostgreSQL (`postgresql://` or `postgres://`, as libpq accepts) rather than a file.
    public static func isPostgresURI(_ location: String) -> Bool {
        PostgresEngine.isURI(location)
    }
}
