import FlagKit

/// Publishing and reading versions.
extension FlagStore {
    /// The columns `record(from:)` reads, in order.
    private static let versionColumns = """
        v.number, v.document, v.content_hash, v.author, v.created_at, v.message, v.rolled_back_from,
        (SELECT value FROM meta WHERE key = 'epoch')
        """

    /// Publishes `document` (canonical bytes) as the next version of `environment`, in one write transaction.
    ///
    /// - `expectedCurrentVersion`: when given, the current version number must equal it (0: no version yet),
    ///   otherwise nothing is written and `versionConflict` is thrown (the service answers 412). The check and
    ///   the insert share the write lock, so of two racing publishers expecting the same version exactly one wins.
    /// - When `document` hashes to the current version's content hash, nothing is written and
    ///   `.unchanged(current)` is returned.
    /// - Returns only after the commit is durable (WAL fsynced).
    public func publish(environment: String, document: [UInt8], author: String, message: String = "",
                        expectedCurrentVersion: Int? = nil) throws -> PublishOutcome {
        try Self.validatePublish(document: document, author: author, message: message)
        let hash = Self.contentHash(document)
        return try write { database in
            try database.transaction(.write) {
                try Self.publishInTransaction(database, environment: environment, document: document, hash: hash,
                                              author: author, message: message,
                                              expectedCurrentVersion: expectedCurrentVersion, rolledBackFrom: nil)
            }
        }
    }

    /// Publishes several documents in ONE durable commit (group commit), for a service that queues
    /// concurrent writes: one fsync then acknowledges them all.
    ///
    /// Requests apply in order, each decided before it writes anything, with exactly `publish`'s rules: a later request
    /// sees the versions earlier ones created (two requests expecting the same version: the second gets
    /// `versionConflict`). A refused request (conflict, unknown environment, invalid input) is a `.failure`
    /// and does not affect the others, except a request chained on a refused one (`PublishRequest.chainedOnPrevious`). When the transaction itself fails (busy, I/O), this throws and
    /// nothing of the batch was published.
    ///
    /// `audit` lines (refusals the writer collected since its last commit) are written in the same transaction,
    /// before the batch's publishes, so they cost no fsync of their own; they commit or fail with the batch.
    /// A request whose document is already current (`.unchanged`) gets its `publish` line ("unchanged: ...")
    /// in the same transaction too.
    ///
    /// `rebase`: when another writer's version came first (another node's, on PostgreSQL) and a request is refused
    /// with `versionConflict`, it is called under the write lock with the request's index and the version current
    /// now (hash verified); the bytes it returns are published on that version in the same transaction (no other
    /// writer can come first again), nil leaves the conflict. A request chained on one that stays refused is refused
    /// without asking. It runs inside the store's write: it must not call the store.
    ///
    /// `knownHeads`: each environment's newest version as the caller has it installed. On PostgreSQL, when every
    /// requested environment has one (and this store has published there before), the batch is built on them without
    /// reading the heads and costs one round trip; the server checks them in the same transaction (`HeadGuard`), and a
    /// head that was not the stored one costs that transaction and the usual two round trips.
    public func publish(batch requests: [PublishRequest], audit entries: [AuditRecord] = [],
                        knownHeads: [String: VersionRecord] = [:],
                        rebase: ((_ index: Int, _ newest: VersionRecord?) -> [UInt8]?)? = nil) throws -> [Result<PublishOutcome, FlagStoreError>] {
        let hashes: [Result<String, FlagStoreError>] = requests.map { request in
            do {
                try Self.validatePublish(document: request.document, author: request.author, message: request.message)
                return .success(Self.contentHash(request.document))
            } catch {
                return .failure(FlagStoreError.wrap(error))
            }
        }
        return try write { database in
            if case .postgres = database, let assumed = assumedHeads(for: requests, knownHeads) {
                // One round trip: the heads are not read but checked by the server, in the same pipeline as the writes
                // and COMMIT (`HeadGuard`). Where the caller's head was not the stored one, the guard aborts the whole
                // transaction and the batch is decided again below on the heads as read.
                do {
                    var heads = assumed
                    let results = try database.transaction(.groupCommitTryingLock) {
                        try HeadGuard.enqueueLock(database)
                        for head in assumed.values { try HeadGuard.enqueue(head, database) }
                        return try publishBatch(requests, hashes, entries, database, heads: &heads, rebase: nil,
                                                declineConflicts: true)
                    }
                    knownEnvironments.withLock { known in
                        for name in assumed.keys { known[name]?.guardHeld() }
                    }
                    return results
                } catch HeadGuard.Declined.conflict {
                    // A request did not fit the caller's head: nothing was sent, the stored head decides.
                } catch let error as DatabaseError where HeadGuard.isGuard(error) {
                    headGuardMisses.withLock { $0 += 1 }
                    knownEnvironments.withLock { known in
                        for name in assumed.keys { known[name]?.guardMissed() }
                    }
                }
            }
            // The first statement is the first request's head (a query): BEGIN and the lock go with it.
            var heads: [String: PublishHead] = [:]
            let results = try database.transaction(.groupCommit) {
                try publishBatch(requests, hashes, entries, database, heads: &heads, rebase: rebase, declineConflicts: false)
            }
            knownEnvironments.withLock { known in
                for (name, head) in heads where known[name]?.id != head.environmentID {
                    known[name] = KnownEnvironment(id: head.environmentID)
                }
            }
            return results
        }
    }

    /// Each requested environment's head as the caller knows it (`knownHeads`) with the row id this store read before;
    /// nil when one of them is unknown (no version yet, or not seen by this store), or when another writer moved one of
    /// them lately (`KnownEnvironment.skip`): then the heads are read.
    private func assumedHeads(for requests: [PublishRequest], _ knownHeads: [String: VersionRecord]) -> [String: PublishHead]? {
        guard !knownHeads.isEmpty else { return nil }
        return knownEnvironments.withLock { known -> [String: PublishHead]? in
            var heads: [String: PublishHead] = [:]
            for request in requests where heads[request.environment] == nil {
                let name = request.environment
                guard let record = knownHeads[name], let environment = known[name] else { return nil }
                heads[name] = PublishHead(environmentID: environment.id, number: record.number, hash: record.contentHash,
                                          epoch: record.epoch, current: record, unverified: nil)
            }
            // A batch that could be tried counts down each backoff it waits out.
            var usable = true
            for name in heads.keys where (known[name]?.skip ?? 0) > 0 {
                known[name]?.skip -= 1
                usable = false
            }
            return usable ? heads : nil
        }
    }

    /// The requests of `publish(batch:)` in the open transaction, on `heads` (read when missing). With
    /// `declineConflicts`, a request that does not fit its head throws `HeadGuard.Declined` instead: the heads were
    /// assumed, so only the stored ones may refuse it.
    private func publishBatch(_ requests: [PublishRequest], _ hashes: [Result<String, FlagStoreError>], _ entries: [AuditRecord],
                              _ database: Database, heads: inout [String: PublishHead],
                              rebase: ((_ index: Int, _ newest: VersionRecord?) -> [UInt8]?)?,
                              declineConflicts: Bool) throws -> [Result<PublishOutcome, FlagStoreError>] {
        if !entries.isEmpty { try Self.audit(database, entries) }
        // The newest version of each environment whose last request was refused with `versionConflict`: a
        // request chained on it (`PublishRequest.chainedOnPrevious`) is refused too.
        var conflicted: [String: Int] = [:]
        // The head of each environment whose last request `rebase` rebuilt: a request chained on it names the
        // document it was built on before, so it is rebuilt on this head directly (no head check that must
        // fail, no read of what this transaction just wrote).
        var rebuiltHead: [String: VersionRecord] = [:]
        var results: [Result<PublishOutcome, FlagStoreError>] = []
        results.reserveCapacity(requests.count)
        for (index, (request, hash)) in zip(requests.indices, zip(requests, hashes)) {
            let environment = request.environment
            if request.chainedOnPrevious, let current = conflicted[environment] {
                results.append(.failure(.versionConflict(environment: environment,
                                                         expected: request.expectedCurrentVersion ?? current, current: current)))
                continue
            }
            var result: Result<PublishOutcome, FlagStoreError>
            var rebuilt = false
            if request.chainedOnPrevious, let head = rebuiltHead[environment], let rebase {
                let refusal = FlagStoreError.versionConflict(environment: environment,
                                                             expected: request.expectedCurrentVersion ?? head.number, current: head.number)
                let again = try rebased(request, index: index, rebase, database, newest: head, head: &heads[environment])
                result = again ?? .failure(refusal)
                rebuilt = again != nil
            } else {
                result = try publishOne(request, hash, database, head: &heads[environment])
                if case .failure(.versionConflict) = result, declineConflicts { throw HeadGuard.Declined.conflict }
                if case .failure(.versionConflict) = result, let rebase,
                   let again = try rebased(request, index: index, rebase, database,
                                           newest: try heads[environment]?.newest()
                                               ?? Self.verifiedNewestVersion(database, environment: environment,
                                                                             environmentID: heads[environment]?.environmentID),
                                           head: &heads[environment]) {
                    result = again
                    rebuilt = true
                }
            }
            switch result {
            case .success(.published(let record)) where rebuilt, .success(.unchanged(let record)) where rebuilt:
                rebuiltHead[environment] = record
            default:
                rebuiltHead[environment] = nil
            }
            if case .failure(.versionConflict(_, _, let current)) = result {
                conflicted[request.environment] = current
            } else {
                conflicted[request.environment] = nil
            }
            results.append(result)
        }
        return results
    }

    /// A request of `publish(batch:)` that found another writer's version, built again by `rebase` on `newest` (read
    /// with its hash verified, or just written by this transaction) and published on it; nil when `rebase` declines.
    /// The head check writes nothing before it throws, so this is still under the write lock with nothing of the
    /// request written.
    private func rebased(_ request: PublishRequest, index: Int, _ rebase: (Int, VersionRecord?) -> [UInt8]?,
                         _ database: Database, newest: VersionRecord?,
                         head: inout PublishHead?) throws -> Result<PublishOutcome, FlagStoreError>? {
        guard let document = rebase(index, newest) else { return nil }
        var again = request
        again.document = document
        again.expectedCurrentVersion = newest?.number ?? 0
        again.expectedCurrentHash = newest?.contentHash
        let hash: Result<String, FlagStoreError>
        do {
            try Self.validatePublish(document: document, author: request.author, message: request.message)
            hash = .success(Self.contentHash(document))
        } catch {
            hash = .failure(FlagStoreError.wrap(error))
        }
        if let newest, head?.number == newest.number { head?.current = newest }
        return try publishOne(again, hash, database, head: &head)
    }

    /// One request of `publish(batch:)`, in the batch's transaction: a refusal is a `.failure` and has written nothing; a
    /// database error (busy, I/O) throws and fails the whole batch.
    private func publishOne(_ request: PublishRequest, _ hash: Result<String, FlagStoreError>,
                            _ database: Database, head: inout PublishHead?) throws -> Result<PublishOutcome, FlagStoreError> {
        switch hash {
        case .failure(let error):
            return .failure(error)
        case .success(let hash):
            do {
                // No savepoint: a request writes nothing before it is decided (its insert, audit line and notification
                // come after every check), so a refused one leaves nothing behind, and a database error fails the whole
                // batch either way. On PostgreSQL that is two statements per flip fewer.
                let outcome = try Self.publishInTransaction(
                    database, environment: request.environment, document: request.document, hash: hash,
                    author: request.author, message: request.message,
                    expectedCurrentVersion: request.expectedCurrentVersion,
                    expectedCurrentHash: request.expectedCurrentHash, rolledBackFrom: nil,
                    target: request.target, client: request.client, head: &head)
                if case .unchanged(let current) = outcome {
                    // Accepted, yet nothing to publish: the attempt's line commits with the batch rather
                    // than waiting for a commit (a second fsync) of its own.
                    try Self.audit(database, AuditRecord(
                        actor: request.author, action: "publish", environment: request.environment,
                        target: request.target, client: request.client, version: current.number,
                        detail: "unchanged: version \(current.number) already has this content"))
                }
                return .success(outcome)
            } catch let error as FlagStoreError {
                return .failure(error)
            }
        }
    }

    /// Publishes the content of version `number` again as a new version, recording `rolledBackFrom = number`.
    ///
    /// Same rules as `publish`: `versionConflict` on a stale expectation, `.unchanged` when the current
    /// content is already that version's; `versionNotFound` when `number` does not exist.
    ///
    /// `client` (the caller's address) goes into the `publish` audit line.
    ///
    /// `allowedOn`: when another writer's version came first (another node's, on PostgreSQL), it is called under the
    /// write lock with the version current now (hash verified); true publishes the rollback on it in this transaction
    /// (no other writer can come first again), false leaves the `versionConflict`. It runs inside the store's write:
    /// it must not call the store.
    public func rollback(environment: String, to number: Int, author: String, message: String = "",
                         expectedCurrentVersion: Int? = nil, client: String? = nil,
                         allowedOn: ((VersionRecord?) throws -> Bool)? = nil) throws -> PublishOutcome {
        try Self.validateAuthorAndMessage(author: author, message: message)
        return try write { database in
            try database.transaction(.write) {
                let environmentID = try Self.environmentID(database, environment)
                guard let old = try Self.fetchVersion(database, environmentID: environmentID, name: environment,
                                                      number: number) else {
                    throw FlagStoreError.versionNotFound(environment: environment, number: number)
                }
                // Republishing damaged bytes under the old hash would give them a fresh, trusted version.
                try Self.verify(old)
                func publish(expecting expected: Int?) throws -> PublishOutcome {
                    try Self.publishInTransaction(database, environment: environment, document: old.document,
                                                  hash: old.contentHash, author: author, message: message,
                                                  expectedCurrentVersion: expected, rolledBackFrom: number, client: client)
                }
                do {
                    return try publish(expecting: expectedCurrentVersion)
                } catch FlagStoreError.versionConflict where allowedOn != nil {
                    // The head check writes nothing before it throws: still under the lock, the newest version decides.
                    let newest = try Self.verifiedNewestVersion(database, environment: environment)
                    guard let allowedOn, try allowedOn(newest) else { throw FlagStoreError.versionConflict(
                        environment: environment, expected: expectedCurrentVersion ?? 0, current: newest?.number ?? 0) }
                    return try publish(expecting: newest?.number ?? 0)
                }
            }
        }
    }

    static func validatePublish(document: [UInt8], author: String, message: String) throws {
        if document.isEmpty { throw FlagStoreError.invalidArgument(name: "document", reason: "must not be empty") }
        try validateAuthorAndMessage(author: author, message: message)
    }

    private static func validateAuthorAndMessage(author: String, message: String) throws {
        try requireNonEmpty(author, name: "author")
        if message.utf8.count > 10_000 {
            throw FlagStoreError.invalidArgument(name: "message", reason: "longer than 10000 bytes")
        }
    }

    /// Throws `damagedVersion` unless `record.document` hashes to `record.contentHash`. Every read that
    /// hands out a document to serve or republish goes through this: the hash is the ETag and what clients
    /// verify, so bytes changed on disk must never be sent under it.
    public static func verify(_ record: VersionRecord) throws(FlagStoreError) {
        let actual = contentHash(record.document)
        guard actual == record.contentHash else {
            throw .damagedVersion(environment: record.environment, number: record.number,
                                  storedHash: record.contentHash, actualHash: actual)
        }
    }

    /// Every version of every environment whose document does not hash to its `contentHash`, oldest first
    /// (`flagserver check`). Reads the whole history, one row at a time.
    public func damagedVersions() throws -> [FlagStoreError] {
        try read { database in
            try database.query("""
                SELECT e.name, \(Self.versionColumns) FROM versions v JOIN environments e ON e.id = v.environment_id
                ORDER BY e.name, v.number
                """) { row in Self.record(from: row, environment: row.text(0), offset: 1) }
                .compactMap { record -> FlagStoreError? in
                    do throws(FlagStoreError) {
                        try Self.verify(record)
                        return nil
                    } catch {
                        return error
                    }
                }
        }
    }

    /// The current (newest) version of `environment`, or nil when nothing was published yet.
    public func currentVersion(environment: String) throws -> VersionRecord? {
        try read { try Self.newestVersion($0, environment: environment) }
    }

    /// The newest version of `environment` on `database`, nil when it has none (not verified).
    /// One query when the environment has a version (a node's catch-up asks this after every other node's commit); the
    /// environment is looked up on its own only when none is found, to tell "no version yet" from an unknown name.
    static func newestVersion(_ database: Database, environment: String) throws -> VersionRecord? {
        let found = try database.queryFirst(
            "SELECT \(versionColumns) FROM versions v WHERE v.environment_id = (SELECT id FROM environments WHERE name = ?) "
                + "ORDER BY v.number DESC LIMIT 1",
            [.text(environment)]) { record(from: $0, environment: environment) }
        if found == nil { _ = try environmentID(database, environment) }
        return found
    }

    /// Version `number` of `environment`; `versionNotFound` when there is none. Not verified: callers that
    /// serve or republish it check it with `verify(_:)`.
    public func version(environment: String, number: Int) throws -> VersionRecord {
        try read { database in
            let environmentID = try Self.environmentID(database, environment)
            guard let record = try Self.fetchVersion(database, environmentID: environmentID, name: environment,
                                                     number: number) else {
                throw FlagStoreError.versionNotFound(environment: environment, number: number)
            }
            return record
        }
    }

    /// A page of history, newest first: at most `limit` (1...1000) versions numbered below `before`
    /// (all when nil). The next page is `before: page.last.number`; an empty page means the end.
    public func versions(environment: String, limit: Int = 50, before: Int? = nil) throws -> [VersionRecord] {
        guard (1...1000).contains(limit) else {
            throw FlagStoreError.invalidArgument(name: "limit", reason: "must be between 1 and 1000, got \(limit)")
        }
        return try read { database in
            let environmentID = try Self.environmentID(database, environment)
            return try database.query("""
                SELECT \(Self.versionColumns) FROM versions v
                WHERE v.environment_id = ? AND v.number < ? ORDER BY v.number DESC LIMIT ?
                """, [.integer(environmentID), .integer(Int64(before ?? Int.max)), .integer(Int64(limit))]) {
                Self.record(from: $0, environment: environment)
            }
        }
    }

    /// The current version of every environment that has one, by environment name (for startup).
    ///
    /// One indexed lookup per environment on `UNIQUE(environment_id, number)`: independent of history length.
    public func latestVersions() throws -> [String: VersionRecord] {
        try read { database in
            // The subquery walks the (environment_id, number) index backwards and stops at the first row;
            // a max(number) correlated to a join on versions would scan every version instead.
            let rows = try database.query("""
                SELECT e.name, \(Self.versionColumns) FROM environments e
                JOIN versions v ON v.id = (SELECT id FROM versions WHERE environment_id = e.id ORDER BY number DESC LIMIT 1)
                """) { row in
                (row.text(0), Self.record(from: row, environment: row.text(0), offset: 1))
            }
            return Dictionary(rows, uniquingKeysWith: { first, _ in first })
        }
    }

    /// `newestVersion` with its hash verified: what a rebase under the write lock builds on (it is republished).
    /// `environmentID`: the environment's row id when the caller has it (one query less).
    static func verifiedNewestVersion(_ database: Database, environment: String, environmentID: Int64? = nil) throws -> VersionRecord? {
        let record: VersionRecord?
        if let environmentID {
            record = try database.queryFirst(
                "SELECT \(versionColumns) FROM versions v WHERE v.environment_id = ? ORDER BY v.number DESC LIMIT 1",
                [.integer(environmentID)]) { Self.record(from: $0, environment: environment) }
        } else {
            record = try newestVersion(database, environment: environment)
        }
        if let record { try verify(record) }
        return record
    }

    static func fetchVersion(_ database: Database, environmentID: Int64, name: String,
                                     number: Int) throws -> VersionRecord? {
        try database.queryFirst(
            "SELECT \(versionColumns) FROM versions v WHERE v.environment_id = ? AND v.number = ?",
            [.integer(environmentID), .integer(Int64(number))]) { record(from: $0, environment: name) }
    }

    private static func record(from row: Row, environment: String, offset: Int32 = 0) -> VersionRecord {
        VersionRecord(environment: environment, number: row.int(offset), document: row.blob(offset + 1),
                      contentHash: row.text(offset + 2), author: row.text(offset + 3),
                      createdAtMilliseconds: row.int64(offset + 4), message: row.text(offset + 5),
                      rolledBackFrom: row.optionalInt(offset + 6), epoch: row.int64(offset + 7))
    }
}
