import FlagStore
import HTTPServer
import ServerLock

/// The registry of every environment's current `Snapshot`, read by GET (and OFREP) handlers without
/// touching SQLite, and swapped atomically by the writer after each durable commit.
///
/// A read is one lock plus a comparison of a few environment names (the document GET reads its response under it,
/// `withSnapshot`, without even a retain); the snapshot itself is immutable,
/// so a reader keeps using the one it got even while a newer one is installed.
public final class SnapshotStore: Sendable {
    struct State {
        var snapshots: [String: Snapshot] = [:] {
            didSet { list = Array(snapshots.values) }
        }
        /// `snapshots`' values, for the GET's lookup: comparing a few environment names costs less than hashing
        /// the name on every request.
        private(set) var list: [Snapshot] = []
        var environments: [String] = []

        /// Sets `snapshot` as its environment's current one (learning the environment if new); returns the one replaced.
        mutating func put(_ snapshot: Snapshot) -> Snapshot? {
            let replaced = snapshots.updateValue(snapshot, forKey: snapshot.environment)
            if replaced == nil, !environments.contains(snapshot.environment) {
                environments.append(snapshot.environment)
                environments.sort()
            }
            return replaced
        }
    }

    private let state = PThreadMutex(State())

    /// An empty registry.
    public init() {}

    /// The current snapshot of `environment`, or nil when it has no version yet or is unknown.
    public func snapshot(_ environment: String) -> Snapshot? {
        state.withLock { state in
            var i = 0
            while i < state.list.count {
                if state.list[i].environment == environment { return state.list[i] }
                i += 1
            }
            return nil
        }
    }

    /// `body`'s answer for the current snapshot of `environment` (nil when there is none), under the lock: the
    /// document GET reads its prepared response without retaining and releasing the snapshot, an object every
    /// loop's requests share.
    public func withSnapshot<R>(_ environment: String, _ body: (Snapshot) -> R) -> R? {
        state.withLock { state -> R? in
            var i = 0
            while i < state.list.count {
                if state.list[i].environment == environment { return body(state.list[i]) }
                i += 1
            }
            return nil
        }
    }

    /// Every environment's current snapshot.
    public func all() -> [String: Snapshot] {
        state.withLock { $0.snapshots }
    }

    /// The environments that exist in the store (with or without a version), sorted.
    public var environments: [String] {
        state.withLock { $0.environments }
    }

    /// Whether `environment` exists.
    public func contains(_ environment: String) -> Bool {
        state.withLock { $0.environments.contains(environment) }
    }

    /// Installs `snapshot` as its environment's current one, unless a newer version is already installed
    /// (the writer is the only installer, but keeping versions monotonic costs nothing). Returns the snapshot it
    /// replaced, so that its release (a decoded document, its responses, its OFREP answers: thousands of objects
    /// freed) happens after this lock, which every GET takes, is unlocked, not inside it.
    @discardableResult
    public func install(_ snapshot: Snapshot) -> Snapshot? {
        state.withLock { state -> Snapshot? in
            if let current = state.snapshots[snapshot.environment], current.version > snapshot.version { return nil }
            let replaced = state.put(snapshot)
            return replaced
        }
    }

    /// Several nodes (`ClusterNode.catchUp`): installs `snapshot` only when it is newer than the installed one
    /// (a version another node published and this one already installed is not installed, nor announced, twice).
    /// Returns whether it was installed and the snapshot it replaced (to be released outside the lock, as `install`).
    public func installIfNewer(_ snapshot: Snapshot) -> (installed: Bool, replaced: Snapshot?) {
        state.withLock { state -> (installed: Bool, replaced: Snapshot?) in
            if let current = state.snapshots[snapshot.environment], current.version >= snapshot.version { return (false, nil) }
            let replaced = state.put(snapshot)
            return (true, replaced)
        }
    }

    /// Several nodes: installs `snapshot` whatever the installed one's number, because the database no longer has the
    /// installed one (a commit acknowledged and then lost in an asynchronous failover; `ClusterNode.catchUp`
    /// checked under the announcing lock). The database is the truth: serving what it lost would hold every write on
    /// this node to a base no commit can match. Returns the snapshot it replaced (released outside the lock).
    public func replaceLost(with snapshot: Snapshot) -> Snapshot? {
        state.withLock { state -> Snapshot? in
            let replaced = state.put(snapshot)
            return replaced
        }
    }

    /// Replaces the list of known environments (at start).
    public func setEnvironments(_ names: [String]) {
        state.withLock { $0.environments = names.sorted() }
    }

    /// Loads every environment's newest version from `store` (one indexed lookup each).
    /// Throws the store's error, or `FlagDocumentError` when a stored document no longer decodes.
    public func load(from store: FlagStore) throws {
        let names = try store.environments()
        let latest = try store.latestVersions()
        var snapshots: [String: Snapshot] = [:]
        for (name, record) in latest {
            snapshots[name] = try Snapshot(record: record)
        }
        state.withLock { state in
            state.environments = names.sorted()
            state.snapshots = snapshots
        }
    }
}
