/// A guard rule that cannot be used, naming the JSON field at fault (`GuardRule`'s shape, docs/guards.md), so the API
/// and flagctl can point at it.
public struct GuardRuleError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The JSON field at fault (`metric`, `measure`, `threshold`, ...).
    public var field: String
    /// What is wrong with it, for a person.
    public var message: String

    /// An error about `field`.
    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    /// `field: message`.
    public var description: String { "\(field): \(message)" }
}
