import FlagKit

/// A guard to record (`FlagStore.createGuard`): on a published version (`version` and
/// `publishedAtMilliseconds` set: it starts `watching`) or on a change not applied yet (`changeID` set, the rest nil: it
/// starts `waiting`). The rule is the `GuardRule` JSON, validated by the caller (the store keeps it as it is given).
public struct NewGuard: Sendable, Equatable {
    /// The environment whose version it watches.
    public var environment: String
    /// The change (schedule or change request) it rides on; nil for a guard on a published version.
    public var changeID: Int64?
    /// The watched version, when it is published already.
    public var version: Int?
    /// When the watched version was published (the window's start).
    public var publishedAtMilliseconds: Int64?
    /// Only this product's notifications; nil: every product.
    public var product: String?
    /// Which App Store environment's notifications it reads (`Production`, `Sandbox`, ...).
    public var appStoreEnvironment: String
    /// The rule (`GuardRule`'s JSON, every field present).
    public var rule: JSONValue
    /// The token that made it.
    public var createdBy: String
    /// The client's address, for the audit line.
    public var client: String?

    /// A guard; see each property.
    public init(environment: String, changeID: Int64? = nil, version: Int? = nil,
                publishedAtMilliseconds: Int64? = nil, product: String? = nil, appStoreEnvironment: String = "Production",
                rule: JSONValue, createdBy: String, client: String? = nil) {
        self.environment = environment
        self.changeID = changeID
        self.version = version
        self.publishedAtMilliseconds = publishedAtMilliseconds
        self.product = product
        self.appStoreEnvironment = appStoreEnvironment
        self.rule = rule
        self.createdBy = createdBy
        self.client = client
    }
}
