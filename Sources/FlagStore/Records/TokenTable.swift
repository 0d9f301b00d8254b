import FlagKit

/// The active tokens' hashes in memory, so the service can authenticate a request without SQLite.
///
/// `authenticate` hashes the presented secret and compares it with EVERY entry in constant time, without
/// stopping at a match, so its duration depends only on the number of tokens. Reload it (`FlagStore.tokenTable()`)
/// after tokens are created or revoked.
public struct TokenTable: Sendable {
    private let entries: [(hash: [UInt8], record: TokenRecord)]

    /// A table of (SHA-256 hex, record) pairs.
    init(entries: [(hash: String, record: TokenRecord)]) {
        self.entries = entries.map { (Array($0.hash.utf8), $0.record) }
    }

    /// How many active tokens are loaded.
    public var count: Int { entries.count }

    /// The active token with this secret, or nil.
    public func authenticate(secret: String) -> TokenRecord? {
        guard secret.hasPrefix(FlagStore.tokenPrefix), secret.utf8.count <= 200 else { return nil }
        let hash = Array(SHA256.hexDigest(Array(secret.utf8)).utf8)
        var found: TokenRecord?
        for entry in entries where Self.constantTimeEquals(entry.hash, hash) {
            found = entry.record
        }
        return found
    }

    /// Compares two byte strings in time that depends only on their lengths (never on where they differ).
    public static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
