/// A positional argument (`<file>`), converted to `Value` when the command reads it.
///
/// Declared once, as a static property of the command, and read with `parsed.required(Self.file)` (arity `.one`),
/// `parsed.value(...)` (`.optional`) or `parsed.values(...)` (`.oneOrMore`).
public struct Argument<Value: Sendable>: ArgumentDeclaration {
    /// What the parser and the help text need.
    public let spec: ArgumentSpec
    /// Turns the text into a value, or says why it cannot.
    let transform: @Sendable (String) throws(UsageError) -> Value

    /// An argument converted by `transform`, whose error message is what the person sees.
    public init(_ name: String, _ arity: ArgumentSpec.Arity = .one, help: String,
                transform: @escaping @Sendable (String) throws(UsageError) -> Value) {
        spec = ArgumentSpec(name, arity, help: help)
        self.transform = transform
    }
}

extension Argument where Value == String {
    /// An argument whose value is the text as given.
    public init(_ name: String, _ arity: ArgumentSpec.Arity = .one, help: String) {
        self.init(name, arity, help: help) { text throws(UsageError) in text }
    }
}
