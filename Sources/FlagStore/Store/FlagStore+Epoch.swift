import Foundation

/// The epoch: which line of version numbers this database holds. Apps refuse a document older than the one they
/// have (a stale cache or CDN replaying history); after a restore from a backup the server's numbers are lower
/// than what apps saw, so a restore starts a new, larger epoch and the envelope carries it (`docs/api.md`).
extension FlagStore {
    /// The current epoch (milliseconds since 1970 when it began).
    public func epoch() throws -> Int64 {
        try read { try Self.epoch($0) }
    }

    /// Starts a new epoch, larger than the current one and than `atLeast`, recorded in the audit log.
    @discardableResult
    public func startNewEpoch(actor: String, atLeast floor: Int64 = 0, reason: String) throws -> Int64 {
        try write { database in
            try database.transaction(.write) {
                let next = max(currentMilliseconds(), try Self.epoch(database) + 1, floor + 1)
                try database.run("UPDATE meta SET value = ? WHERE key = 'epoch'", [.integer(next)])
                try Self.audit(database, actor: actor, action: "epoch.start", environment: nil, detail: "epoch \(next): \(reason)")
                return next
            }
        }
    }

    /// Replaces this database's whole content by the backup at `sourcePath` (SQLite's backup API into the writer
    /// connection, one consistent step), brings its schema up to date, and starts a new epoch larger than both
    /// the backup's and the one in force before. Stop the server first: a running one would keep serving its
    /// snapshots of the old content. The backup file is only read.
    ///
    /// Returns the new epoch. The backup must pass `integrity_check` first; nothing is changed otherwise. PostgreSQL:
    /// `notSupported`, naming pg_restore.
    @discardableResult
    public func restore(from sourcePath: String, actor: String) throws -> Int64 {
        try engine.restore(self, from: sourcePath, actor: actor)
    }

    /// The epoch as stored (a database from before the `meta` table has been migrated: it is always there).
    static func epoch(_ database: Database) throws -> Int64 {
        guard let value = try database.queryFirst("SELECT value FROM meta WHERE key = 'epoch'", row: { $0.int64(0) }) else {
            throw FlagStoreError.database(DatabaseError(extendedResultCode: 1, message: "meta has no epoch", sql: nil))
        }
        return value
    }
}
