/// PostgreSQL only: which node runs the jobs that must run once (scheduled changes, request expiry and stale
/// marking, webhook deliveries): the one holding `PostgresLock.jobs`, a session-level advisory lock on a
/// connection of the lease's own.
///
/// When that node dies, its session ends and the server releases the lock; another node's next `renew()`
/// takes it. A node that loses its connection loses the lock with it, and `renew()` says so. The database's
/// compare-and-set still guards every application (a change is applied only from `scheduled`/`approved`, an
/// attempt number is unique per delivery), so even two nodes that both believed they led would not apply a
/// schedule twice.
public final class JobLease: @unchecked Sendable {
    // @unchecked: one thread (the node's sync thread) uses a lease.

    private let connection: PostgresConnection
    private var heldOn = 0

    init(conninfo: String, timeout: Duration = PostgresConnection.defaultTimeout) throws {
        connection = try PostgresConnection(conninfo: conninfo, timeout: timeout)
    }

    /// Takes the lock when no node holds it, or checks that this node still does; true when this node leads.
    /// False (never a throw) when the server cannot be reached: a node that cannot reach the database leads nothing.
    public func renew() -> Bool {
        do {
            if heldOn != 0, heldOn == connection.connections {
                // Still the session that took the lock: it is held as long as the session lives.
                return try connection.result("SELECT 1", []).rowCount == 1
            }
            let taken = try connection.result("SELECT pg_try_advisory_lock(?)", [.integer(PostgresLock.jobs.rawValue)])
            let held = taken.rowCount == 1 && taken.int64(0) == 1
            heldOn = held ? connection.connections : 0
            return held
        } catch {
            heldOn = 0
            return false
        }
    }

    /// Gives the lock up (at shutdown), so another node takes over at once rather than when this session ends.
    public func close() {
        connection.close()
        heldOn = 0
    }
}
