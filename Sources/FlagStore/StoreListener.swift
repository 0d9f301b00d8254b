import Glibc

/// PostgreSQL only: a connection of its own that `LISTEN`s for the versions other nodes publish
/// (`pg_notify` in the publish's transaction, delivered at its commit).
///
/// Notifications are a wake-up, not the truth: they are lost while the connection is down or when the primary
/// changes, so the node also compares each environment's newest version (`FlagStore.newestVersionNumbers()`)
/// after every wait, notified or not. After a lost connection the next `wait` connects again and LISTENs again.
public final class StoreListener: @unchecked Sendable {
    // @unchecked: one thread (the node's sync thread) uses a listener.

    /// The channel publishes notify, with the environment's name as payload.
    public static let channel = "flagstore_versions"

    private let connection: PostgresConnection
    private var listeningOn = 0

    init(conninfo: String) throws {
        connection = try PostgresConnection(conninfo: conninfo)
        try listenIfNeeded()
    }

    private func listenIfNeeded() throws {
        guard listeningOn != connection.connections else { return }
        try connection.execute("LISTEN \(Self.channel)")
        listeningOn = connection.connections
    }

    /// Waits up to `timeout` for notifications and returns the environments named (empty when none came).
    /// Throws `FlagStoreError.unavailable` when the server cannot be reached; call again to reconnect.
    public func wait(timeout: Duration) throws -> [String] {
        do {
            try listenIfNeeded()
            var received = try connection.notifications()
            if received.isEmpty {
                var descriptor = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
                let (seconds, attoseconds) = timeout.components
                let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
                if poll(&descriptor, 1, milliseconds) > 0 { received = try connection.notifications() }
            }
            return received.filter { $0.channel == Self.channel }.map(\.payload)
        } catch {
            throw FlagStoreError.wrap(error)
        }
    }

    /// The server the listener is connected to (`host:port`), nil while it is not: after a failover, which host of
    /// a multi-host URI is the primary now.
    public var server: String? { connection.server }

    /// Closes the connection.
    public func close() { connection.close() }
}

extension FlagStore {
    /// A listener for other nodes' publishes (PostgreSQL; `notSupported` on SQLite, where one process writes).
    public func makeListener() throws -> StoreListener {
        guard isPostgres else {
            throw FlagStoreError.notSupported(operation: "listening for other nodes", instead: "SQLite has one writing process")
        }
        do { return try StoreListener(conninfo: conninfo) } catch { throw FlagStoreError.wrap(error) }
    }

    /// Each environment's newest version number (0: none yet), by name: what a node compares with its snapshots.
    /// One indexed lookup per environment.
    public func newestVersionNumbers() throws -> [String: Int] {
        try read { database in
            let rows = try database.query("""
                SELECT e.name, coalesce((SELECT number FROM versions WHERE environment_id = e.id ORDER BY number DESC LIMIT 1), 0)
                FROM environments e
                """) { ($0.text(0), $0.int(1)) }
            return Dictionary(rows, uniquingKeysWith: { first, _ in first })
        }
    }
}
