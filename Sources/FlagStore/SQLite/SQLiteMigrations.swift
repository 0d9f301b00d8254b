/// SQLite's migrations, applied in order; `PRAGMA user_version` counts how many have run. The same steps, with the
/// same names and the same tables, columns, constraints and indexes, as `PostgresMigrations` (`SchemaParityTests`).
///
/// Never edit a migration that has shipped: append a new one, here and in `PostgresMigrations`.
enum SQLiteMigrations {
    /// Every migration; `steps.count` is the newest schema version this build knows.
    static let steps: [Schema.Migration] = [
        Schema.Migration(name: "environments, versions, tokens, audit", sql: """
            CREATE TABLE environments (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                created_at INTEGER NOT NULL
            );
            CREATE TABLE versions (
                id INTEGER PRIMARY KEY,
                environment_id INTEGER NOT NULL REFERENCES environments(id),
                number INTEGER NOT NULL CHECK (number >= 1),
                document BLOB NOT NULL,
                content_hash TEXT NOT NULL CHECK (length(content_hash) = 64),
                author TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                message TEXT NOT NULL,
                rolled_back_from INTEGER CHECK (rolled_back_from IS NULL OR rolled_back_from < number),
                UNIQUE (environment_id, number)
            );
            -- Versions are history: never changed, never deleted.
            CREATE TRIGGER versions_no_update BEFORE UPDATE ON versions
                BEGIN SELECT RAISE(ABORT, 'versions are immutable'); END;
            CREATE TRIGGER versions_no_delete BEFORE DELETE ON versions
                BEGIN SELECT RAISE(ABORT, 'versions are never deleted'); END;
            CREATE TABLE tokens (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                role TEXT NOT NULL CHECK (role IN ('reader', 'writer', 'admin')),
                secret_hash TEXT NOT NULL UNIQUE CHECK (length(secret_hash) = 64),
                created_at INTEGER NOT NULL,
                revoked_at INTEGER
            );
            -- A name is unique among active tokens; a revoked name may be reused.
            CREATE UNIQUE INDEX tokens_active_name ON tokens(name) WHERE revoked_at IS NULL;
            CREATE TABLE audit (
                id INTEGER PRIMARY KEY,
                at INTEGER NOT NULL,
                actor TEXT NOT NULL,
                action TEXT NOT NULL,
                environment TEXT,
                detail TEXT NOT NULL
            );
            INSERT INTO environments (name, created_at) VALUES
                ('production', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)),
                ('staging', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
            """),
        // The epoch orders this database's version numbers against another's: a restore from a backup starts a
        // new, larger epoch, so apps that hold a higher version of the old line accept the restored documents.
        Schema.Migration(name: "meta: epoch", sql: """
            CREATE TABLE meta (
                key TEXT PRIMARY KEY,
                value INTEGER NOT NULL
            );
            INSERT INTO meta (key, value) VALUES ('epoch', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
            """),
        // Scoped tokens, the audit's outcome columns and indexes, changes (schedules and change requests in one id
        // space), policies, and webhooks with their delivery log (docs/governance.md).
        //
        // Constraints and triggers carry the rules the code relies on, so a bug or a hand edit with sqlite3
        // cannot leave a change applied twice or marked applied without its version:
        //
        // - `changes_transition` allows exactly the transitions of the governance table (pending → scheduled,
        //   approved, rejected, expired, stale, cancelled; scheduled → applied, conflicted, failed, cancelled;
        //   approved → applied, conflicted, failed); every other status is final.
        // - A change is `applied` exactly when it has `applied_version` and `applied_at`, and that version exists
        //   (a foreign key on `(environment_id, applied_version)`).
        // - Changes, like versions, are never deleted.
        Schema.Migration(name: "governance: scoped tokens, audit outcome, changes, policies, webhooks", sql: """
            -- NULL: every environment; otherwise a JSON array of environment names, sorted.
            ALTER TABLE tokens ADD COLUMN environments TEXT CHECK (environments IS NULL OR json_valid(environments));

            -- Refusals are audited too: what happened, with which HTTP status, why, from where, to what.
            -- The CHECK is spelled with OR, not IN: SQLite evaluates an IN list of more than two constants through an
            -- ephemeral table built at every execution, and this one runs for every publish.
            ALTER TABLE audit ADD COLUMN outcome TEXT NOT NULL DEFAULT 'ok'
                CHECK (outcome = 'ok' OR outcome = 'refused' OR outcome = 'failed');
            ALTER TABLE audit ADD COLUMN status INTEGER;
            ALTER TABLE audit ADD COLUMN reason TEXT;
            ALTER TABLE audit ADD COLUMN client TEXT;
            ALTER TABLE audit ADD COLUMN target TEXT;
            ALTER TABLE audit ADD COLUMN version INTEGER;
            -- Each index is (column, rowid) inside, so "WHERE column = ? ORDER BY id DESC" walks it backwards
            -- without a sort. Every index costs each publish a b-tree insert, so the two
            -- whose common value is a publish's are partial: publishes are most lines, and a newest-first scan finds
            -- them at once; refusals and other actions are the rare lines an index is for.
            CREATE INDEX audit_environment ON audit(environment);
            CREATE INDEX audit_actor ON audit(actor);
            CREATE INDEX audit_action ON audit(action) WHERE action <> 'publish';
            CREATE INDEX audit_at ON audit(at);
            CREATE INDEX audit_not_ok ON audit(outcome) WHERE outcome <> 'ok';

            CREATE TABLE changes (
                id INTEGER PRIMARY KEY,
                environment_id INTEGER NOT NULL REFERENCES environments(id),
                kind TEXT NOT NULL CHECK (kind IN ('flags', 'document', 'rollback')),
                change_set TEXT NOT NULL CHECK (json_valid(change_set)),
                base_version INTEGER NOT NULL CHECK (base_version >= 0),
                author TEXT NOT NULL,
                message TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                apply_at INTEGER,
                expires_at INTEGER,
                needs_approval INTEGER NOT NULL CHECK (needs_approval IN (0, 1)),
                touched_flags TEXT NOT NULL CHECK (json_valid(touched_flags)),
                protected_flags TEXT NOT NULL CHECK (json_valid(protected_flags)),
                status TEXT NOT NULL CHECK (status IN ('pending', 'scheduled', 'approved', 'applied', 'conflicted', 'stale',
                                                       'failed', 'rejected', 'expired', 'cancelled')),
                approved_by TEXT,
                decided_by TEXT,
                decided_at INTEGER,
                decision_message TEXT,
                applied_at INTEGER,
                applied_version INTEGER,
                conflicts TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(conflicts)),
                reason TEXT,
                details TEXT CHECK (details IS NULL OR json_valid(details)),
                CHECK ((status = 'applied') = (applied_version IS NOT NULL AND applied_at IS NOT NULL)),
                CHECK (status <> 'scheduled' OR apply_at IS NOT NULL),
                FOREIGN KEY (environment_id, applied_version) REFERENCES versions(environment_id, number)
            );
            -- Due changes (status, apply_at); an environment's changes newest first (environment_id, rowid); its
            -- schedules by time.
            CREATE INDEX changes_due ON changes(status, apply_at);
            CREATE INDEX changes_environment ON changes(environment_id);
            CREATE INDEX changes_environment_apply_at ON changes(environment_id, apply_at) WHERE apply_at IS NOT NULL;
            CREATE TRIGGER changes_transition BEFORE UPDATE OF status ON changes
                WHEN NOT ((OLD.status = 'pending'
                           AND NEW.status IN ('scheduled', 'approved', 'rejected', 'expired', 'stale', 'cancelled'))
                          OR (OLD.status IN ('scheduled', 'approved') AND NEW.status IN ('applied', 'conflicted', 'failed'))
                          OR (OLD.status = 'scheduled' AND NEW.status = 'cancelled'))
                BEGIN SELECT RAISE(ABORT, 'change status transition not allowed'); END;
            CREATE TRIGGER changes_no_delete BEFORE DELETE ON changes
                BEGIN SELECT RAISE(ABORT, 'changes are never deleted'); END;

            CREATE TABLE policies (
                environment_id INTEGER PRIMARY KEY REFERENCES environments(id),
                policy TEXT NOT NULL CHECK (json_valid(policy)),
                updated_at INTEGER NOT NULL,
                updated_by TEXT NOT NULL
            );

            CREATE TABLE webhooks (
                id INTEGER PRIMARY KEY,
                url TEXT NOT NULL,
                secret TEXT NOT NULL,
                events TEXT NOT NULL CHECK (json_valid(events)),
                environments TEXT CHECK (environments IS NULL OR json_valid(environments)),
                created_at INTEGER NOT NULL,
                created_by TEXT NOT NULL,
                deleted_at INTEGER
            );
            CREATE TABLE webhook_deliveries (
                id INTEGER PRIMARY KEY,
                webhook_id INTEGER NOT NULL REFERENCES webhooks(id),
                event_id TEXT NOT NULL,
                event_type TEXT NOT NULL,
                environment TEXT,
                payload BLOB NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
                attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                next_attempt_at INTEGER,
                last_status INTEGER,
                last_error TEXT,
                created_at INTEGER NOT NULL,
                delivered_at INTEGER,
                UNIQUE (webhook_id, event_id),
                CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
                CHECK ((status = 'delivered') = (delivered_at IS NOT NULL))
            );
            CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE status = 'pending';
            CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries(webhook_id);
            CREATE TABLE webhook_attempts (
                id INTEGER PRIMARY KEY,
                delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries(id),
                number INTEGER NOT NULL CHECK (number >= 1),
                at INTEGER NOT NULL,
                response_status INTEGER,
                error TEXT,
                duration_ms INTEGER NOT NULL CHECK (duration_ms >= 0),
                UNIQUE (delivery_id, number)
            );
            """),
        // An attempt the server refused to send (docs/operations.md, "Webhook destinations"): its destination was, or
        // resolved to, an address inside (loopback, private, link-local, ...); `error` says which and why.
        Schema.Migration(name: "webhook attempts: refused", sql: """
            ALTER TABLE webhook_attempts ADD COLUMN refused INTEGER NOT NULL DEFAULT 0 CHECK (refused IN (0, 1));
            """),
        // App Store Server Notifications (docs/appstore.md): one row per `NotificationRecord`, stored once under Apple's
        // `notificationUUID` (Apple sends a notification again until it gets a 200, and any node may receive it),
        // read by `signed_date` ranges and deleted by age; and the key of the subscription hash, one for every node.
        Schema.Migration(name: "appstore notifications", sql: """
            CREATE TABLE appstore_notifications (
                notification_uuid TEXT NOT NULL PRIMARY KEY,
                notification_type TEXT NOT NULL,
                subtype TEXT,
                signed_date INTEGER NOT NULL,
                received_at INTEGER NOT NULL,
                environment TEXT NOT NULL,
                product_id TEXT,
                offer_type INTEGER,
                offer_identifier TEXT,
                offer_discount_type TEXT,
                price INTEGER,
                currency TEXT,
                storefront TEXT,
                transaction_reason TEXT,
                expires_date INTEGER,
                expiration_intent INTEGER,
                revocation_reason INTEGER,
                price_increase_status INTEGER,
                auto_renew_status INTEGER,
                is_in_billing_retry_period INTEGER CHECK (is_in_billing_retry_period IS NULL OR is_in_billing_retry_period IN (0, 1)),
                grace_period_expires_date INTEGER,
                subscription TEXT
            );
            CREATE INDEX appstore_notifications_signed_date ON appstore_notifications(signed_date);
            CREATE TABLE appstore_keys (
                name TEXT NOT NULL PRIMARY KEY,
                key BLOB NOT NULL CHECK (length(key) = 32)
            );
            """),
        // Guards (docs/guards.md, "The service"): one row per guard on a published version or on a change, watched by the
        // node that runs the jobs; and the schedules a tripped `pauseSchedules` guard holds (`changes.held_by_guard`,
        // skipped by the due changes until the guard is overridden or removed). `held_by_guard` has no foreign key:
        // guards reference changes, and the copy orders tables by their references, which must not form a cycle.
        Schema.Migration(name: "guards", sql: """
            CREATE TABLE guards (
                id INTEGER PRIMARY KEY,
                environment_id INTEGER NOT NULL REFERENCES environments(id),
                change_id INTEGER REFERENCES changes(id),
                version INTEGER,
                product TEXT,
                appstore_environment TEXT NOT NULL,
                rule TEXT NOT NULL CHECK (json_valid(rule)),
                created_by TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                published_at INTEGER,
                status TEXT NOT NULL CHECK (status IN ('waiting', 'watching', 'tripped', 'overridden', 'closed', 'cancelled',
                                                       'removed')),
                last_decision TEXT CHECK (last_decision IS NULL OR json_valid(last_decision)),
                last_evaluated_at INTEGER,
                last_audited_hours INTEGER,
                tripped_at INTEGER,
                action TEXT CHECK (action IS NULL OR json_valid(action)),
                overridden_by TEXT,
                overridden_at INTEGER,
                override_message TEXT,
                CHECK (change_id IS NOT NULL OR version IS NOT NULL),
                CHECK (status NOT IN ('watching', 'tripped', 'overridden', 'closed')
                       OR (version IS NOT NULL AND published_at IS NOT NULL)),
                CHECK (status NOT IN ('tripped', 'overridden') OR tripped_at IS NOT NULL),
                CHECK ((status = 'overridden') = (overridden_by IS NOT NULL AND overridden_at IS NOT NULL)),
                FOREIGN KEY (environment_id, version) REFERENCES versions(environment_id, number)
            );
            CREATE INDEX guards_status ON guards(status);
            CREATE INDEX guards_environment ON guards(environment_id);
            CREATE INDEX guards_change ON guards(change_id) WHERE change_id IS NOT NULL;
            ALTER TABLE changes ADD COLUMN held_by_guard INTEGER;
            CREATE INDEX changes_held_by_guard ON changes(held_by_guard) WHERE held_by_guard IS NOT NULL;
            """),
    ]

    /// Brings the file to the newest schema, one write transaction per migration.
    ///
    /// The version is re-read inside each write transaction, so two processes opening a fresh file at
    /// once do not both run the same migration.
    ///
    /// `count` stops after that many migrations, so tests can build a file as an older release left it.
    static func migrate(_ connection: SQLiteConnection, path: String, through count: Int = steps.count) throws {
        let database = Database.sqlite(connection)
        let found = try connection.userVersion()
        guard found <= steps.count else {
            throw FlagStoreError.schemaTooNew(location: path, found: found, supported: steps.count)
        }
        for (index, migration) in steps.enumerated() where index >= found && index < count {
            try database.transaction(.write) {
                guard try connection.userVersion() == index else { return }
                do {
                    try connection.execute(migration.sql)
                } catch let error as DatabaseError {
                    throw DatabaseError(extendedResultCode: error.extendedResultCode,
                                        message: "migration \(index + 1) (\(migration.name)): \(error.message)",
                                        sql: error.sql)
                }
                try connection.setUserVersion(index + 1)
            }
        }
    }
}
