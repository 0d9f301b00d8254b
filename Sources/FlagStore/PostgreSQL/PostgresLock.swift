/// The store's PostgreSQL advisory lock keys (https://www.postgresql.org/docs/current/explicit-locking.html#ADVISORY-LOCKS).
///
/// Advisory locks live in one key space per database; these numbers are the store's own ("FLAG" in ASCII,
/// then a small number), unlikely to meet another application's in a shared database.
package enum PostgresLock: Int64, Sendable {
    /// Taken by every write transaction (`Database.transaction(.write)`) and by migrations: PostgreSQL's
    /// stand-in for SQLite's one write lock, across every node.
    case writes = 0x464C_4147_0001
    /// Held on a session of its own by the one node that runs the jobs that must run once (`JobLeader`).
    case jobs = 0x464C_4147_0002
}
