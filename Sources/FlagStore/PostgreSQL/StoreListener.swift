import Glibc

/// PostgreSQL only: a connection of its own that `LISTEN`s for the versions other nodes publish and the changes
/// (schedules, change requests, their decisions) they record (`pg_notify` in the writing transaction, delivered at its
/// commit).
///
/// Notifications are a wake-up, not the truth: they are lost while the connection is down or when the primary
/// changes, so the node also compares each environment's newest version (`FlagStore.newestVersions()`)
/// after every wait, notified or not, and a wait that had to LISTEN again says so (`Heard.reconnected`): whatever
/// changed meanwhile must be looked at. After a lost connection the next `wait` connects again and LISTENs again.
///
/// The node's own writer's commits notify too; the node installed them before answering, so their notifications
/// (sent by the write connection's server process) do not end a wait. One whose commit the writer could not confirm
/// (the session lost at `COMMIT`) is found by the comparison after the wait, within its timeout.
public final class StoreListener: @unchecked Sendable {
    // @unchecked: one thread (the node's sync thread) uses a listener.

    /// The channel publishes notify, with the environment's name as payload.
    public static let channel = "flagstore_versions"
    /// The channel changes notify (created, approved, rejected, cancelled, expired...), with the environment's name
    /// as payload: the node that runs the jobs must hear of a schedule another node recorded before it is due.
    public static let changesChannel = "flagstore_changes"

    /// What one `wait` heard.
    public struct Heard: Sendable, Equatable {
        /// Whether another node published a version (which environment does not matter: a catch-up compares
        /// every environment's newest version).
        public var published = false
        /// Whether any node recorded or decided a change.
        public var changes = false
        /// The listener (re)connected before waiting: notifications sent while it was not listening are lost.
        public var reconnected = false

        /// Nothing heard.
        public init(published: Bool = false, changes: Bool = false, reconnected: Bool = false) {
            self.published = published
            self.changes = changes
            self.reconnected = reconnected
        }
    }

    private let connection: PostgresConnection
    private var listeningOn = 0
    /// The node's write connection, whose notifications are its own.
    private let ownSession: PostgresSession?

    init(conninfo: String, ownSession: PostgresSession?, timeout: Duration = PostgresConnection.defaultTimeout) throws {
        connection = try PostgresConnection(conninfo: conninfo, timeout: timeout)
        self.ownSession = ownSession
    }

    /// LISTENs on a connection that has not yet; true when it did (a new or a new-made connection).
    private func listenIfNeeded() throws -> Bool {
        guard listeningOn != connection.connections else { return false }
        try connection.execute("LISTEN \(Self.channel); LISTEN \(Self.changesChannel)")
        listeningOn = connection.connections
        return true
    }

    /// Waits up to `timeout` for other nodes' notifications and returns what they named (nothing when none came).
    /// Throws `FlagStoreError.unavailable` when the server cannot be reached; call again to reconnect.
    public func wait(timeout: Duration) throws -> Heard {
        do {
            try connection.reconnectIfNeeded()
            var heard = Heard(reconnected: try listenIfNeeded())
            let deadline = MonotonicClock.nanoseconds() + MonotonicClock.nanoseconds(timeout)
            while true {
                let own = ownSession?.backendPID.load(ordering: .relaxed) ?? 0
                for (channel, _, sender) in try connection.notifications() where sender != own || own == 0 {
                    if channel == Self.channel { heard.published = true }
                    if channel == Self.changesChannel { heard.changes = true }
                }
                let now = MonotonicClock.nanoseconds()
                if heard != Heard() || now >= deadline { return heard }
                var descriptor = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
                // Rounded up, so a wait never polls for 0 ms and spins through its last millisecond.
                if poll(&descriptor, 1, Int32(clamping: (deadline - now + 999_999) / 1_000_000)) <= 0 { return heard }
            }
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
