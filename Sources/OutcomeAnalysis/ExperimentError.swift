/// An experiment that cannot be analysed as given, naming the field at fault (`arms[1].share`, ...).
public struct ExperimentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The field at fault.
    public var field: String
    /// What is wrong with it.
    public var message: String

    /// An error about `field`.
    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    /// `field: message`.
    public var description: String { "\(field): \(message)" }
}
