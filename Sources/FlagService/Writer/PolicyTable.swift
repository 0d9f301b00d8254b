import FlagKit
import FlagStore
import ServerLock

/// Every environment's governance policy in memory (`docs/governance.md`, "Policies"), so the writer decides
/// whether a write needs a second person without reading SQLite on every flip.
///
/// Loaded at start (`load(from:)`) and replaced after each committed `PUT .../policy` (`install`). The writer
/// reads it for every job; the entry carries what the hot path asks first (does the policy protect
/// anything at all?) precomputed, so a flip in an environment without protection pays a lock and a lookup.
public final class PolicyTable: Sendable {
    /// One environment's policy with what the writer's fast path needs.
    public struct Entry: Sendable, Equatable {
        /// The policy in force.
        public let policy: EnvironmentPolicy
        /// The keys of the flags the policy marks protected, in UTF-8 order (empty when the whole
        /// environment is protected: then every change needs approval anyway).
        public let protectedKeys: [String]

        /// The entry of `policy`.
        public init(_ policy: EnvironmentPolicy) {
            self.policy = policy
            protectedKeys = policy.isProtected ? [] : policy.flags.filter(\.value.isProtected).keys.sorted(by: JSONValue.utf8Order)
        }

        /// Whether any change of the environment can need approval.
        public var protectsAnything: Bool { policy.isProtected || !protectedKeys.isEmpty }
    }

    private let entries = PThreadMutex([String: Entry]())
    /// Serializes `PUT .../policy`: the commit and the install of one update happen before the next starts,
    /// so the table never ends up holding an older policy than the database.
    let updates = PThreadMutex(())

    /// An empty table: every environment has the default policy until `load` or `install`.
    public init() {}

    /// The policies of every environment, from the store.
    public func load(from store: FlagStore) throws {
        let records = try store.policies()
        entries.withLock { table in
            for record in records { table[record.environment] = Entry(record.policy) }
        }
    }

    /// The entry in force for `environment` (the default policy's when none was set).
    public func entry(_ environment: String) -> Entry {
        entries.withLock { $0[environment] } ?? Self.defaultEntry
    }

    /// The policy in force for `environment`.
    public func policy(_ environment: String) -> EnvironmentPolicy { entry(environment).policy }

    /// Makes `policy` the one in force for `environment` (after it was committed).
    public func install(_ policy: EnvironmentPolicy, environment: String) {
        let entry = Entry(policy)
        entries.withLock { $0[environment] = entry }
    }

    private static let defaultEntry = Entry(.default)
}
