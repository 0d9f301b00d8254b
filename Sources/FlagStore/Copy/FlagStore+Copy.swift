/// Moving up (`flagserver copy`): a SQLite store copied into an empty PostgreSQL database in one
/// transaction, every row compared and every version's hash recomputed from PostgreSQL's bytes before it commits.
extension FlagStore {
    /// Rows a PostgreSQL database holds before anyone used it: what the migrations insert themselves (the two
    /// first environments, the epoch). A target holding only these is empty; the copy replaces them.
    static let migrationRows: [String: (column: String, values: Set<String>)] = [
        "environments": ("name", ["production", "staging"]), "meta": ("key", ["epoch"]),
    ]

    /// Bytes of values one INSERT carries at most (besides `CopyTable.rowsPerInsert`).
    static let copyBatchBytes = 8 << 20

    /// Copies everything this SQLite store holds into the empty PostgreSQL database at `uri`: every table of the
    /// schema, row by row with its id (environments, versions with their numbers, content hashes, authors, messages
    /// and times, the epoch, tokens as hashes with scopes and revocations, audit, changes in every status, policies,
    /// webhooks with their secrets, deliveries and attempts). Then `actor` is recorded as a `database.copy` audit line
    /// in the target.
    ///
    /// - The source is read in one read transaction (a consistent snapshot, also while a server writes; what is
    ///   written after it began is not copied), after `integrity_check` and a check of every version's content hash:
    ///   `copySourceDamaged` before the target is touched.
    /// - The target is written in ONE transaction holding the store's write lock: the schema is created (or found at
    ///   this build's version), the target must hold nothing but what the migrations insert (`copyTargetNotEmpty`),
    ///   rows go in with bound parameters in multi-row INSERTs, identity sequences are set to continue after the
    ///   copied ids, and every table is read back through a cursor and compared with the source row by row, every
    ///   version's document hashed again (`copyMismatch` on any difference). Any failure, also a lost connection
    ///   or a server killed mid-way, rolls it all back: the target is as before and the copy can run again.
    /// - After the commit a store opened on `uri` must serve the same newest version of every environment, with
    ///   the same hash, in the same epoch.
    public func copy(toPostgres uri: String, actor: String) throws -> CopyReport {
        guard case .sqlite = engine else {
            throw FlagStoreError.notSupported(operation: "copy from PostgreSQL", instead: "copy reads a SQLite file; "
                + "between PostgreSQL databases use pg_dump and pg_restore")
        }
        guard PostgresEngine.isURI(uri) else { throw FlagStoreError.invalidArgument(name: "to", reason: "must be a postgresql:// or postgres:// URI") }
        try Self.requireNonEmpty(actor, name: "actor")
        let start = ContinuousClock.now
        return try read { source in
            do {
                return try source.transaction(.read) { try copy(from: source, to: uri, actor: actor, start: start) }
            } catch let error as FlagStoreError {
                throw error
            } catch {
                // Wrapped here: a raw lost-connection error would make `read` run the whole copy a second time.
                throw FlagStoreError.wrap(error)
            }
        }
    }

    private func copy(from source: Database, to uri: String, actor: String, start: ContinuousClock.Instant) throws -> CopyReport {
        let check = try source.sqlite().integrityCheck()
        guard check == ["ok"] else { throw FlagStoreError.copySourceDamaged(source: location, problems: check) }
        let damaged = try Self.damagedVersionDescriptions(source)
        guard damaged.isEmpty else { throw FlagStoreError.copySourceDamaged(source: location, problems: damaged) }
        let heads = try Self.newestVersions(source)
        let epoch = try Self.epoch(source)
        let revoked = try source.queryFirst("SELECT count(*) FROM tokens WHERE revoked_at IS NOT NULL") { $0.int(0) } ?? 0

        let shown = Self.displayName(of: uri)
        let target: Database
        do {
            target = try Database(postgres: uri)
        } catch let error as DatabaseError {
            throw FlagStoreError.cannotOpen(location: shown, cause: error)
        }
        defer { target.close() }
        let (rows, verified) = try target.transaction(.write) { () throws -> ([String: Int], Int) in
            // Inside the transaction the migrations are savepoints: a failed copy leaves no schema behind either.
            try Schema.migrate(target, path: shown)
            let tables = try CopyTable.plan(source: source, target: target)
            for table in try Self.requireEmpty(target, tables: tables, shown: shown).reversed() {
                try target.run("DELETE FROM \(try CopyTable.quoted(table.name))")
            }
            var rows: [String: Int] = [:]
            for table in tables { rows[table.name] = try Self.copyRows(of: table, from: source, to: target) }
            for table in tables { try Self.continueIdentity(of: table, in: target) }
            var verified = 0
            for table in tables { verified += try Self.verifyRows(of: table, from: source, in: target, count: rows[table.name] ?? 0) }
            try Self.audit(target, actor: actor, action: "database.copy", environment: nil,
                           detail: "copied from \(location): \(rows.values.reduce(0, +)) rows in \(rows.count) tables, epoch \(epoch)")
            return (rows, verified)
        }

        // Read back as the server will: a store of its own on the URI, its newest versions and epoch.
        let copied = try FlagStore.open(location: uri)
        defer { copied.close() }
        let served = try copied.newestVersions()
        let same = served.count == heads.count && heads.allSatisfy { name, head in
            served[name]?.number == head.number && served[name]?.contentHash == head.contentHash
        }
        guard same, try copied.epoch() == epoch else {
            throw FlagStoreError.database(DatabaseError(sqlState: "XX000", message: "the copy committed, but a new connection to "
                + "\(shown) does not read the same newest versions and epoch: drop that database and copy again", sql: nil))
        }
        let elapsed = ContinuousClock.now - start
        return CopyReport(source: location, target: shown, rows: rows, revokedTokens: revoked, epoch: epoch, verifiedHashes: verified,
                          seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// Every version whose stored document does not hash to its content hash, as `damagedVersion` sentences;
    /// one version in memory at a time.
    static func damagedVersionDescriptions(_ database: Database) throws -> [String] {
        let statement = try database.sqlite().statement("""
            SELECT e.name, v.number, v.document, v.content_hash FROM versions v JOIN environments e ON e.id = v.environment_id
            ORDER BY v.id
            """)
        defer { statement.reset() }
        var damaged: [String] = []
        while try statement.step() {
            let stored = statement.text(3)
            let actual = contentHash(statement.blob(2))
            if actual != stored {
                damaged.append(FlagStoreError.damagedVersion(environment: statement.text(0), number: Int(statement.int64(1)),
                                                             storedHash: stored, actualHash: actual).description)
            }
        }
        return damaged
    }

    /// Throws `copyTargetNotEmpty` unless every table is empty but for `migrationRows`; returns the tables that
    /// hold those rows (to be replaced by the source's).
    static func requireEmpty(_ target: Database, tables: [CopyTable], shown: String) throws -> [CopyTable] {
        var holds: [String] = []
        var seeded: [CopyTable] = []
        for table in tables {
            let name = try CopyTable.quoted(table.name)
            let count = try target.queryFirst("SELECT count(*) FROM \(name)") { $0.int(0) } ?? 0
            guard count > 0 else { continue }
            if let allowed = migrationRows[table.name] {
                let values = try target.query("SELECT \(try CopyTable.quoted(allowed.column))::text FROM \(name)") { $0.text(0) }
                if Set(values).isSubset(of: allowed.values) {
                    seeded.append(table)
                    continue
                }
            }
            holds.append("\(table.name): \(count) row\(count == 1 ? "" : "s")")
        }
        guard holds.isEmpty else { throw FlagStoreError.copyTargetNotEmpty(target: shown, holds: holds.joined(separator: ", ")) }
        return seeded
    }

    /// Streams `table`'s rows from SQLite into PostgreSQL in multi-row INSERTs; returns how many.
    static func copyRows(of table: CopyTable, from source: Database, to target: Database) throws -> Int {
        let select = try source.sqlite().statement(table.sourceSelect)
        defer { select.reset() }
        var values: [DatabaseValue] = []
        var pending = 0
        var bytes = 0
        var copied = 0
        func flush() throws {
            guard pending > 0 else { return }
            do {
                try target.run(table.insert(rows: pending), values)
            } catch let error as DatabaseError {
                // Not the statement itself in the message: it has a placeholder per value.
                throw DatabaseError(sqlState: error.sqlState ?? "XX000",
                                    message: "copying \(table.name), rows \(copied - pending + 1)-\(copied): \(error.message)",
                                    sql: "INSERT INTO \(table.name) (\(pending) rows)")
            }
            values.removeAll(keepingCapacity: true)
            pending = 0
            bytes = 0
        }
        while try select.step() {
            for index in table.columns.indices {
                let value = try table.sourceValue(select, index)
                switch value {
                case .blob(let data): bytes += data.count
                case .text(let text): bytes += text.utf8.count
                default: bytes += 8
                }
                values.append(value)
            }
            pending += 1
            copied += 1
            if pending == table.rowsPerInsert || bytes >= copyBatchBytes { try flush() }
        }
        try flush()
        return copied
    }

    /// Sets `table`'s identity sequence so the next row PostgreSQL numbers gets the id after the highest copied.
    static func continueIdentity(of table: CopyTable, in target: Database) throws {
        guard let column = table.identity else { return }
        let highest = try target.queryFirst("SELECT max(\(try CopyTable.quoted(column))) FROM \(try CopyTable.quoted(table.name))") {
            $0.isNull(0) ? nil : $0.int64(0)
        } ?? nil
        try target.run("SELECT setval(pg_get_serial_sequence(?, ?), ?, ?)",
                       [.text(table.name), .text(column), .integer(highest ?? 1), .text(highest == nil ? "false" : "true")])
    }

    /// Reads `table` back from PostgreSQL (a cursor, 500 rows at a time) beside the source's rows in the same order
    /// and compares every value; for `versions` also hashes each document as PostgreSQL returned it. Returns how many
    /// hashes were verified. `copyMismatch` on any difference, a row too many or too few.
    static func verifyRows(of table: CopyTable, from source: Database, in target: Database, count: Int) throws -> Int {
        let select = try source.sqlite().statement(table.sourceSelect)
        defer { select.reset() }
        let documentIndex = table.name == "versions" ? table.columns.firstIndex { $0.name == "document" } : nil
        let hashIndex = table.name == "versions" ? table.columns.firstIndex { $0.name == "content_hash" } : nil
        var compared = 0
        var hashed = 0
        try target.execute("DECLARE flagstore_copy_check NO SCROLL CURSOR FOR " + table.targetSelect)
        while true {
            let fetched = try target.query("FETCH 500 FROM flagstore_copy_check") { row in
                guard try select.step() else {
                    throw FlagStoreError.copyMismatch("\(table.name): PostgreSQL holds more rows than the \(count) copied")
                }
                for index in table.columns.indices {
                    guard table.targetValue(row, index) == (try table.sourceValue(select, index)) else {
                        throw FlagStoreError.copyMismatch("\(table.name).\(table.columns[index].name) of the row with "
                            + "\(table.describeRow(select)) reads back from PostgreSQL differently")
                    }
                }
                if let documentIndex, let hashIndex {
                    let document = table.targetValue(row, documentIndex)
                    let hash = table.targetValue(row, hashIndex)
                    guard case .blob(let bytes) = document, case .text(let stored) = hash, contentHash(bytes) == stored else {
                        throw FlagStoreError.copyMismatch("the version with \(table.describeRow(select)) does not hash to its content hash "
                            + "as PostgreSQL returns it")
                    }
                    hashed += 1
                }
                compared += 1
            }.count
            if fetched == 0 { break }
        }
        try target.execute("CLOSE flagstore_copy_check")
        guard try !select.step(), compared == count else {
            throw FlagStoreError.copyMismatch("\(table.name): \(compared) rows read back from PostgreSQL, \(count) copied")
        }
        return hashed
    }
}
