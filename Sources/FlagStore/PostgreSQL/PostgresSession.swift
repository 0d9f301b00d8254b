import Synchronization

/// Which server process serves a connection's session now (0 before the first connect): shared with other threads.
package final class PostgresSession: Sendable {
    /// `PQbackendPID` of the current session.
    package let backendPID = Atomic<Int32>(0)
}
