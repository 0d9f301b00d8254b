/// A group commit on heads the caller already knows, in one round trip on PostgreSQL (`publish(batch:knownHeads:)`).
extension FlagStore {
    /// The server's check that an environment's head is still the one a batch was built on without reading it: one
    /// statement queued right after the write lock (tried: `lockSQL`), so it runs under the lock before any of the
    /// batch's writes, and
    /// fails the whole pipeline (COMMIT included) when the head moved: another node's version, a restore (a new
    /// epoch), a deleted version. A statement cannot raise an error of its own choosing in plain SQL; a division by
    /// the count of the rows that match is zero exactly when the head is not the one assumed (SQLSTATE 22012). The
    /// count comes from tables, so the planner cannot fold it to a constant and fail a head that did match.
    enum HeadGuard {
        /// The column name that tells this statement's failure from any other division by zero.
        static let marker = "publish_head_guard"

        /// The write lock, tried rather than waited for: the transaction's only exchange then waits for the server
        /// alone, so a stopped server costs `--database-timeout`, not that plus `lock_timeout`. Taken false (another
        /// node writing), the division fails the pipeline as a moved head does. A statement of its own: under READ
        /// COMMITTED each statement reads from a snapshot taken when it starts, so the head check that follows sees
        /// every commit made before the lock was taken.
        static let lockSQL = "SELECT 1 / pg_try_advisory_xact_lock(\(PostgresLock.writes.rawValue))::int AS \(marker)"

        static let sql = """
            SELECT 1 / (SELECT COUNT(*) FROM meta WHERE key = 'epoch' AND value = ?
                AND EXISTS (SELECT 1 FROM versions WHERE environment_id = ? AND number = ? AND content_hash = ?)
                AND NOT EXISTS (SELECT 1 FROM versions WHERE environment_id = ? AND number > ?)) AS \(marker)
            """

        /// Raised inside the transaction when a request does not fit the head it was given: nothing was sent yet, so
        /// ending the transaction costs nothing, and the batch is decided on the stored heads.
        enum Declined: Error { case conflict }

        /// Queues the try of the write lock: the first statement of a `.groupCommitTryingLock` transaction.
        static func enqueueLock(_ database: Database) throws {
            try database.enqueue(lockSQL, [])
        }

        /// Queues the check of `head` (number, content hash and epoch as the caller knows them).
        static func enqueue(_ head: PublishHead, _ database: Database) throws {
            try database.enqueue(sql, [.integer(head.epoch), .integer(head.environmentID), .integer(Int64(head.number)),
                                       .optionalText(head.hash), .integer(head.environmentID), .integer(Int64(head.number))])
        }

        /// Whether `error` is this check failing (the head had moved), not anything else going wrong.
        static func isGuard(_ error: DatabaseError) -> Bool {
            error.sqlState == "22012" && (error.sql?.contains(marker) ?? false)
        }
    }
}

/// An environment as `publish(batch:knownHeads:)` knows it: its row id, and a backoff for heads that other writers
/// keep moving. Several nodes writing one environment flat out overtake each other most of the time; a batch on an
/// overtaken head costs its aborted transaction, a ROLLBACK and then the usual two round trips, so after each miss
/// the next batches read their heads, twice as many as after the miss before (up to 64), until a batch on a known head
/// holds again.
struct KnownEnvironment: Sendable {
    /// The environment's row id.
    let id: Int64
    /// Batches still to read their heads before a known head is tried again.
    var skip = 0
    /// The `skip` of the last miss: doubled at each miss in a row, 0 after a success.
    var penalty = 0

    /// The longest run of batches that read their heads after a miss.
    static let maximumPenalty = 64

    init(id: Int64) {
        self.id = id
    }

    /// The server found the head moved: back off.
    mutating func guardMissed() {
        penalty = min(max(1, penalty * 2), Self.maximumPenalty)
        skip = penalty
    }

    /// A batch on the known head committed.
    mutating func guardHeld() {
        penalty = 0
    }
}
