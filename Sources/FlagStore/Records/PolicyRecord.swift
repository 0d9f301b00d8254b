import FlagKit

/// One environment's policy with who set it and when (`GET /v1/environments/{env}/policy`).
public struct PolicyRecord: Sendable, Equatable {
    /// The environment.
    public let environment: String
    /// The policy in force: the stored one, or `EnvironmentPolicy.default` when none was set.
    public let policy: EnvironmentPolicy
    /// When it was last set (milliseconds since 1970 UTC); nil for the default.
    public let updatedAtMilliseconds: Int64?
    /// Who last set it; nil for the default.
    public let updatedBy: String?

    /// Whether no policy was ever set for the environment (the default is in force).
    public var isDefault: Bool { updatedAtMilliseconds == nil }
}
