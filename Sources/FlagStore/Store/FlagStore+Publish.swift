/// The heart of every publish, inside the caller's transaction: the environment's head, the checks against it, and
/// the writes (queued: on PostgreSQL they go with the transaction's next exchange).
extension FlagStore {
    /// What a publish checks against and builds on: the environment's row id, its newest version (number and content
    /// hash; the record itself when this transaction wrote it) and the epoch. Read in one query (`publishHead`), or
    /// known from the request before it in the same transaction: under the write lock nobody else changes it, so a
    /// group commit reads each environment's head once and sends the rest of its requests without waiting for an answer.
    struct PublishHead {
        var environmentID: Int64
        /// 0: no version yet.
        var number: Int
        var hash: String?
        var epoch: Int64
        /// The newest version's record, when this transaction wrote it or read it and verified its hash.
        var current: VersionRecord?
        /// The newest version's record as the head query read it when its content was not the one expected (another
        /// writer came first), not yet verified: what a rebuild under the lock builds on, without a query of its own.
        var unverified: VersionRecord?

        /// The newest version to build on: `current`, `unverified` once its hash is checked, nil when neither is known.
        func newest() throws -> VersionRecord? {
            if let current { return current }
            guard let unverified else { return nil }
            try FlagStore.verify(unverified)
            return unverified
        }
    }

    /// The head of `environment` as stored; `unknownEnvironment` when there is no such environment. With `expecting`
    /// (the content hash the publisher built on), a head with other content comes with its whole record (`unverified`),
    /// so that a rebuild on it needs no second query; the document is read only then.
    static func publishHead(_ database: Database, environment: String, expecting hash: String? = nil) throws -> PublishHead {
        // The subquery walks the (environment_id, number) index backwards and stops at the first row.
        let found = try database.queryFirst("""
            SELECT e.id, v.number, v.content_hash, (SELECT value FROM meta WHERE key = 'epoch'), other.document, other.author,
            other.created_at, other.message, other.rolled_back_from FROM environments e
            LEFT JOIN versions v ON v.id = (SELECT id FROM versions WHERE environment_id = e.id ORDER BY number DESC LIMIT 1)
            LEFT JOIN versions other ON other.id = v.id AND CAST(? AS TEXT) IS NOT NULL AND v.content_hash <> ?
            WHERE e.name = ?
            """, [.optionalText(hash), .optionalText(hash), .text(environment)]) { row in
            var head = PublishHead(environmentID: row.int64(0), number: row.optionalInt(1) ?? 0, hash: row.optionalText(2),
                                   epoch: row.int64(3), current: nil, unverified: nil)
            if !row.isNull(4) {
                head.unverified = VersionRecord(environment: environment, number: head.number, document: row.blob(4),
                                                contentHash: head.hash ?? "", author: row.text(5), createdAtMilliseconds: row.int64(6),
                                                message: row.text(7), rolledBackFrom: row.optionalInt(8), epoch: head.epoch)
            }
            return (head: head, hasEpoch: !row.isNull(3))
        }
        guard let found else { throw FlagStoreError.unknownEnvironment(environment, known: try environmentNames(database)) }
        guard found.hasEpoch else {
            throw FlagStoreError.database(DatabaseError(extendedResultCode: 1, message: "meta has no epoch", sql: nil))
        }
        return found.head
    }

    /// Publishes inside the caller's transaction (also `applyChange`'s): the expected-version check (and the expected
    /// content hash's, when given: `PublishRequest.expectedCurrentHash`), the unchanged check, the insert and its
    /// `publish` audit line (with `target`, a flip's flag key, and `client`).
    static func publishInTransaction(
        _ database: Database, environment: String, document: [UInt8], hash: String, author: String,
        message: String, expectedCurrentVersion: Int?, expectedCurrentHash: String? = nil, rolledBackFrom: Int?,
        target: String? = nil, client: String? = nil
    ) throws -> PublishOutcome {
        var head: PublishHead?
        return try publishInTransaction(database, environment: environment, document: document, hash: hash, author: author,
                                        message: message, expectedCurrentVersion: expectedCurrentVersion,
                                        expectedCurrentHash: expectedCurrentHash, rolledBackFrom: rolledBackFrom,
                                        target: target, client: client, head: &head)
    }

    /// `publishInTransaction` on `head` when it is known (read when nil), which is then the environment's head after
    /// the publish (or as read, when the publish was refused: nothing was written). The insert, its audit line and the
    /// notification are queued (`Database.enqueue`): on PostgreSQL they go with the transaction's next exchange.
    static func publishInTransaction(
        _ database: Database, environment: String, document: [UInt8], hash: String, author: String,
        message: String, expectedCurrentVersion: Int?, expectedCurrentHash: String? = nil, rolledBackFrom: Int?,
        target: String? = nil, client: String? = nil, head: inout PublishHead?
    ) throws -> PublishOutcome {
        let known = try head ?? publishHead(database, environment: environment, expecting: expectedCurrentHash)
        head = known
        let currentNumber = known.number
        if let expected = expectedCurrentVersion, expected != currentNumber {
            throw FlagStoreError.versionConflict(environment: environment, expected: expected, current: currentNumber)
        }
        if let expectedCurrentHash, expectedCurrentHash != known.hash {
            // The number is right but the content is not what the publisher built on: another writer's version.
            throw FlagStoreError.versionConflict(environment: environment, expected: expectedCurrentVersion ?? currentNumber,
                                                 current: currentNumber)
        }
        if currentNumber > 0, known.hash == hash,
           let current = try known.current ?? fetchVersion(database, environmentID: known.environmentID, name: environment,
                                                            number: currentNumber),
           current.document == document {
            head?.current = current
            return .unchanged(current)
        }
        let record = VersionRecord(environment: environment, number: currentNumber + 1, document: document,
                                   contentHash: hash, author: author, createdAtMilliseconds: currentMilliseconds(),
                                   message: message, rolledBackFrom: rolledBackFrom, epoch: known.epoch)
        try database.enqueueRow("""
            INSERT INTO versions (environment_id, number, document, content_hash, author, created_at, message, rolled_back_from)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [.integer(known.environmentID), .integer(Int64(record.number)), .blob(document), .text(hash), .text(author),
                  .integer(record.createdAtMilliseconds), .text(message), .optionalInteger(rolledBackFrom)])
        var detail = "version \(record.number) sha256 \(hash)"
        if let rolledBackFrom { detail += " rollback of \(rolledBackFrom)" }
        try audit(database, AuditRecord(actor: author, action: "publish", environment: environment, target: target, client: client,
                                        version: record.number, detail: detail), now: record.createdAtMilliseconds)
        // Delivered at COMMIT to every node's `StoreListener`, so they install the version at once.
        try database.notifyAtCommit(channel: StoreListener.channel, payload: environment)
        head = PublishHead(environmentID: known.environmentID, number: record.number, hash: hash, epoch: known.epoch,
                           current: record, unverified: nil)
        return .published(record)
    }
}
