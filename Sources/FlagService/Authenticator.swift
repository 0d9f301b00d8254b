import FlagStore
import Foundation
import HTTPServer
import ServerLock

/// Bearer-token authentication (RFC 6750 §2.1) against the store's hashed tokens.
///
/// Writes ask the store (`FlagStore.authenticate`, a read on the read-only connection, off the event loop),
/// so a revoked token stops writing at once. Reads, when `--require-read-token` is on, use an in-memory
/// `TokenTable` (constant-time comparison against every token) refreshed every few seconds, so a GET never
/// touches SQLite.
public final class Authenticator: Sendable {
    let store: FlagStore
    private let table: PThreadMutex<TokenTable?>

    /// An authenticator over `store`'s tokens; the table is loaded now.
    public init(store: FlagStore) throws {
        self.store = store
        table = PThreadMutex(try store.tokenTable())
    }

    /// Reloads the in-memory table (after tokens were created or revoked by `flagserver token ...`).
    public func reload() throws {
        let fresh = try store.tokenTable()
        table.withLock { $0 = fresh }
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
        return try Self.check(table.withLock { $0?.authenticate(secret: secret) }, needed: needed)
    }

    /// The token of a secret from the in-memory table (OFREP's reader check; never touches SQLite).
    func cachedRecord(secret: String) -> TokenRecord? {
        table.withLock { $0?.authenticate(secret: secret) }
    }

    private static func check(_ record: TokenRecord?, needed: TokenRole) throws(ServiceError) -> TokenRecord {
        guard let record else { throw ServiceError.unauthorized("unknown or revoked token", invalidToken: true) }
        guard record.role.allows(needed) else { throw ServiceError.forbidden(role: record.role, needed: needed, actor: record.name) }
        return record
    }
}
