/// The keys the App Store receiver needs stored with the data (`appstore_keys`): the key of the subscription hash,
/// shared by every node of the store so one subscription's notifications get the same hash wherever they arrive.
extension FlagStore {
    /// The `appstore_keys` row of the subscription hash's key.
    static let subscriptionHashKeyName = "subscription"

    /// The key of the subscription hash (HMAC-SHA256 of `originalTransactionId`, docs/appstore.md): 32 random bytes
    /// from the OS (`SystemRandomNumberGenerator`: getrandom(2) on Linux), created on first use and the same for every
    /// node of the store and every later call.
    ///
    /// Created with insert-if-absent and read back in the same write transaction: two nodes racing on an empty table
    /// both read the key the first commit wrote. A store that has it answers from a read, without the write lock.
    public func subscriptionHashKey() throws -> [UInt8] {
        if let key = try read({ try Self.storedKey($0, name: Self.subscriptionHashKeyName) }) { return key }
        var generator = SystemRandomNumberGenerator()
        let fresh = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return try write { database in
            try database.transaction(.write) { () throws -> [UInt8] in
                try database.run("INSERT INTO appstore_keys (name, key) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                                 [.text(Self.subscriptionHashKeyName), .blob(fresh)])
                guard let key = try Self.storedKey(database, name: Self.subscriptionHashKeyName) else {
                    throw FlagStoreError.database(DatabaseError(sqlState: "XX000", message: "appstore_keys has no row "
                        + "\(Self.subscriptionHashKeyName) right after inserting it", sql: nil))
                }
                return key
            }
        }
    }

    /// Key `name`, or nil when there is none; a stored key that is not 32 bytes is corruption (`SQLITE_CORRUPT`).
    static func storedKey(_ database: Database, name: String) throws -> [UInt8]? {
        guard let key = try database.queryFirst("SELECT key FROM appstore_keys WHERE name = ?", [.text(name)],
                                                row: { $0.blob(0) }) else { return nil }
        guard key.count == 32 else {
            throw FlagStoreError.database(DatabaseError(extendedResultCode: 11, message: "appstore_keys.\(name) holds "
                + "\(key.count) bytes, not 32", sql: nil))
        }
        return key
    }
}
