import FlagStore
import ServerLock

/// Replication: this node's snapshots kept as the shared database says, and the writer's own versions installed
/// through the same lock.
extension ClusterNode {
    /// Makes a version this node's writer committed current and tells the event streams; returns the snapshot it
    /// replaced, for the writer to free outside the lock GETs take. Shared store: under the announcing lock and only
    /// when newer, since another node's later version may have been installed meanwhile (`catchUp`): each version is
    /// announced once, in order.
    func install(_ snapshot: Snapshot) -> Snapshot? {
        guard isShared else {
            let replaced = snapshots.install(snapshot)
            events.publish(snapshot)
            return replaced
        }
        return announcing.withLock { _ -> Snapshot? in
            let outcome = snapshots.installIfNewer(snapshot)
            if outcome.installed { events.publish(snapshot) }
            return outcome.replaced
        }
    }

    /// Shared store: installs and announces the versions other nodes published since this node's snapshots (each
    /// environment's newest number and content hash compared, one indexed lookup each), and learns new environments.
    /// Their webhook deliveries were stored by the publishing node, so only the event streams and the scheduler hear of
    /// them here. Run every round, and by the writer when a request found the database ahead of its base or before a
    /// rare decision (`WriteQueue.process`).
    ///
    /// A snapshot the database does not have (its newest number is lower, or the same number holds other content: an
    /// acknowledged commit lost in an asynchronous failover) is replaced by the database's version, checked again
    /// under the announcing lock so that a commit of this node's writer in between is not undone. Each environment is
    /// caught up on its own: one whose stored version no longer decodes does not stop the others.
    /// Returns what failed: the whole catch-up (the database away) or single environments.
    @discardableResult
    func catchUp() -> CatchUpFailures {
        catchUps.add(1, ordering: .relaxed)
        let newest: [String: (number: Int, contentHash: String)]
        let startedAt = MonotonicClock.nanoseconds()
        do {
            newest = try store.newestVersions()
        } catch {
            if isShared { reachability.lose() }
            logger.log(.warning, "catch_up_failed", ["error": "\(error)"])
            return CatchUpFailures(all: error)
        }
        // Confirmed once the newer versions below are installed: a read between would see them missing.
        defer { if isShared { reachability.confirm(startedAt: startedAt) } }
        let names = newest.keys.sorted()
        if names != snapshots.environments { snapshots.setEnvironments(names) }
        var failures = CatchUpFailures()
        for (name, head) in newest.sorted(by: { $0.key < $1.key }) {
            let served = snapshots.snapshot(name)
            let lost = Self.databaseLost(served, newest: head.number, hash: head.contentHash)
            guard head.number > (served?.version ?? 0) || lost else { continue }
            do {
                if lost {
                    try replaceLostSnapshot(name)
                    continue
                }
                guard let record = try store.currentVersion(environment: name) else { continue }
                let snapshot = try Snapshot(record: record)
                let outcome = announcing.withLock { _ in
                    let outcome = snapshots.installIfNewer(snapshot)
                    if outcome.installed { events.publish(snapshot) }
                    return outcome
                }
                let installed = outcome.installed
                withExtendedLifetime(outcome.replaced) {}
                if installed {
                    scheduler.versionPublished(name)
                    logger.log(.info, "version_from_another_node", ["env": name, "version": "\(record.number)"])
                }
            } catch {
                logger.log(.warning, "catch_up_failed", ["env": name, "error": "\(error)"])
                failures.environments[name] = error
            }
        }
        return failures
    }

    /// Whether the database does not have `served`: its newest version is older, or the same number holds other content.
    static func databaseLost(_ served: Snapshot?, newest number: Int, hash: String) -> Bool {
        guard let served, served.version > 0 else { return false }
        return number < served.version || (number == served.version && hash != served.record.contentHash)
    }

    /// The database does not have the version this node serves for `name`: installs the database's newest, read again
    /// under the announcing lock (this node's writer announces under it after its commit, so a version it committed
    /// meanwhile is seen here and kept).
    private func replaceLostSnapshot(_ name: String) throws {
        let (replaced, installed) = try announcing.withLock { _ throws -> (Snapshot?, VersionRecord?) in
            guard let record = try store.currentVersion(environment: name),
                  Self.databaseLost(snapshots.snapshot(name), newest: record.number, hash: record.contentHash)
            else { return (nil, nil) }
            let snapshot = try Snapshot(record: record)
            let replaced = snapshots.replaceLost(with: snapshot)
            events.publish(snapshot)
            return (replaced, record)
        }
        guard let installed else { return }
        withExtendedLifetime(replaced) {}
        scheduler.versionPublished(name)
        logger.log(.error, "served_version_lost", ["env": name, "served": "\(replaced?.version ?? 0)",
                                                   "servedHash": replaced?.record.contentHash ?? "",
                                                   "database": "\(installed.number)", "databaseHash": installed.contentHash])
    }
}

/// What a catch-up could not do (`ClusterNode.catchUp`): a decision the writer would make on a base it could
/// not bring up to date gets the store's error instead (503), not a refusal the newest version might not deserve.
struct CatchUpFailures {
    /// The newest versions could not be read at all (the database away): every environment's base may be stale.
    var all: (any Error)?
    /// Environments whose newest version could not be installed (a read failed, or it no longer decodes).
    var environments: [String: any Error] = [:]

    /// Why `environment`'s base may be stale, or nil.
    func error(for environment: String) -> (any Error)? { environments[environment] ?? all }
}
