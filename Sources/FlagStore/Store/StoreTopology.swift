/// Who else writes to the store: what the service layer asks instead of which SQL engine is behind it.
public enum StoreTopology: Sendable, Equatable {
    /// One process owns the store (a SQLite file): its writes are the only ones, its jobs always run here.
    case singleProcess
    /// Several nodes share the store (PostgreSQL): another node may publish first, the jobs need a lease,
    /// and tokens, policies and webhooks change under this node's feet.
    case shared
}

extension FlagStore {
    /// Whether other nodes may write to this store (`StoreTopology`).
    public var topology: StoreTopology { engine.topology }
}
