/// Each environment's newest version, for a node comparing what it serves with what the database holds, and for the
/// copy's check of its target.
extension FlagStore {
    /// Each environment's newest version number and content hash (0 and "" for one without versions): one indexed
    /// lookup each. The hash tells a node whether the version it serves under a number is the one the database has
    /// under it (after an asynchronous failover lost an acknowledged commit, another node may publish other content
    /// under the same number).
    public func newestVersions() throws -> [String: (number: Int, contentHash: String)] {
        try read { try Self.newestVersions($0) }
    }

    /// `newestVersions()` on a connection (also `copy`'s source and its check of the copy).
    static func newestVersions(_ database: Database) throws -> [String: (number: Int, contentHash: String)] {
        // One backwards step on the (environment_id, number) index per environment and column, whatever the planner
        // knows. Joined instead (`v.id = (SELECT id ...)`), PostgreSQL plans a hash join over a sequential scan of every
        // version while `environments` has not been analyzed (it takes the never-analyzed one-page table for 1,200
        // rows, EXPLAIN), and every node's catch-up after every other node's commit read the whole table
        // (Benchmarks/RESULTS.md, Cluster).
        let rows = try database.query("""
            SELECT e.name,
            coalesce((SELECT number FROM versions WHERE environment_id = e.id ORDER BY number DESC LIMIT 1), 0),
            coalesce((SELECT content_hash FROM versions WHERE environment_id = e.id ORDER BY number DESC LIMIT 1), '')
            FROM environments e
            """) { ($0.text(0), (number: $0.int(1), contentHash: $0.text(2))) }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }
}
