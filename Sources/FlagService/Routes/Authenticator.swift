import FlagStore
import Foundation
import HTTPServer
import ServerLock
import Synchronization

/// Bearer-token authentication (RFC 6750 §2.1) against the store's hashed tokens.
///
/// Writes ask the store (`FlagStore.authenticate`, a read on the read-only connection, off the event loop),
/// so a revoked token stops writing at once. Reads, when `--require-read-token` is on, use an in-memory
/// `TokenTable` (constant-time comparison against every token) refreshed every few seconds (`ClusterNode`: a timer on a single-process
/// store, each round on a shared one), so a GET never touches the database.
public final class Authenticator: Sendable {
    /// What the in-memory table says about a token at a request's head (`headLookup`).
    enum HeadLookup: Sendable, Equatable {
        /// In the table (the store still decides, off the loop: revocation, role, scope).
        case known
        /// Not in the table, and the database has not changed since the table was loaded: unknown for sure.
        case unknown
        /// Not in the table, but a token was created or revoked since it was loaded (perhaps by `flagserver token
        /// create` in another process): only the store can tell; a reload has been asked for.
        case unsure
    }

    /// The table and the state of the store's token stamp (`FlagStore.tokensStampPath`) when it was read.
    struct Loaded: Sendable {
        var table: TokenTable?
        var stamp: FileStamp
    }

    let store: FlagStore
    private let loaded: PThreadMutex<Loaded>
    private let stampPath: String?
    private let reloadPending = Atomic<Bool>(false)
    /// How many times the table was loaded since the start (the tests check that one timer does it, not several).
    let reloads = Atomic<Int>(0)

    /// An authenticator over `store`'s tokens; the table is loaded now.
    public init(store: FlagStore) throws {
        self.store = store
        stampPath = store.tokensStampPath
        let stamp = FileStamp(path: stampPath)
        loaded = PThreadMutex(Loaded(table: try store.tokenTable(), stamp: stamp))
    }

    /// Reloads the in-memory table (after tokens were created or revoked by `flagserver token ...`).
    public func reload() throws {
        // Stamped before reading: a token changed between the two is seen as a change by the next lookup.
        let stamp = FileStamp(path: stampPath)
        let fresh = try store.tokenTable()
        loaded.withLock { $0 = Loaded(table: fresh, stamp: stamp) }
        reloads.add(1, ordering: .relaxed)
    }

    /// Whether the token of a request's head is in the table, without SQLite (on the loop). A miss is certain
    /// only when no token was created or revoked since the table was read (`FlagStore.tokensStampPath`: one `stat`,
    /// on misses only; other commits, such as flips, do not count); otherwise a reload is started in the background
    /// and the answer is `unsure`. A token written into the file by other means than the store (an old `flagserver`,
    /// `sqlite3`) is found by the table's timed reload.
    func headLookup(secret: String) -> HeadLookup {
        let (found, stamp) = loaded.withLock { ($0.table?.authenticate(secret: secret) != nil, $0.stamp) }
        if found { return .known }
        // A shared store: other nodes create tokens and there is no file to stamp; the database decides every miss
        // (off the loop), and the node reloads the table each round (`ClusterNode`).
        if store.topology == .shared { return .unsure }
        if FileStamp(path: stampPath) == stamp { return .unknown }
        if !reloadPending.exchange(true, ordering: .acquiringAndReleasing) {
            DispatchQueue.global().async { [self] in
                defer { reloadPending.store(false, ordering: .releasing) }
                try? reload()
            }
        }
        return .unsure
    }

    /// The secret of `Authorization: Bearer <secret>` (parsed by `HTTPBearerCredentials`), or the service's
    /// 401: without a token it names the role `needed`; another scheme or no token after `Bearer` is
    /// `invalid_token` (RFC 6750 §3.1).
    static func secret(_ request: HTTPRequest, needed: TokenRole) throws(ServiceError) -> String {
        switch HTTPBearerCredentials(request.headers) {
        case .token(let secret):
            return secret
        case .absent:
            throw ServiceError.unauthorized("this needs a \(needed.rawValue) token (Authorization: Bearer ...)", invalidToken: false)
        case .malformed(.otherScheme):
            throw ServiceError.unauthorized("use Authorization: Bearer <token>", invalidToken: true)
        case .malformed(.missingToken):
            throw ServiceError.unauthorized("empty bearer token", invalidToken: true)
        }
    }

    /// The token of `request` if its role allows `needed`, from the store (fresh); 401 or 403 otherwise.
    func requireFresh(_ request: HTTPRequest, role needed: TokenRole) throws(ServiceError) -> TokenRecord {
        let secret = try Self.secret(request, needed: needed)
        let record: TokenRecord?
        do {
            record = try store.authenticate(secret: secret)
        } catch {
            throw ServiceError.store(error)
        }
        return try Self.check(record, needed: needed)
    }

    /// The same check from the in-memory table (for reads; never touches SQLite).
    func requireCached(_ request: HTTPRequest, role needed: TokenRole) throws(ServiceError) -> TokenRecord {
        let secret = try Self.secret(request, needed: needed)
        return try Self.check(cachedRecord(secret: secret), needed: needed)
    }

    /// The token of a secret from the in-memory table (OFREP's reader check; never touches SQLite).
    func cachedRecord(secret: String) -> TokenRecord? {
        loaded.withLock { $0.table?.authenticate(secret: secret) }
    }

    private static func check(_ record: TokenRecord?, needed: TokenRole) throws(ServiceError) -> TokenRecord {
        guard let record else { throw ServiceError.unauthorized("unknown or revoked token", invalidToken: true) }
        guard record.role.allows(needed) else { throw ServiceError.forbidden(role: record.role, needed: needed, actor: record.name) }
        return record
    }
}

/// A file's identity and last change (inode, size, modification time to the nanosecond), or its absence: two
/// equal stamps mean nothing was written to it in between.
struct FileStamp: Sendable, Equatable {
    let inode: UInt64
    let size: Int64
    let seconds: Int
    let nanoseconds: Int

    init(path: String?) {
        var info = stat()
        guard let path, stat(path, &info) == 0 else {
            (inode, size, seconds, nanoseconds) = (0, -1, 0, 0)
            return
        }
        (inode, size, seconds, nanoseconds) = (UInt64(info.st_ino), Int64(info.st_size), info.st_mtim.tv_sec, info.st_mtim.tv_nsec)
    }
}
