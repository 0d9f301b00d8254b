/// An option that takes a value (`--sample <n>`), converted to `Value` when the command reads it.
///
/// Declared once, as a static property of the command, and read with `parsed.value(Self.sample)` (the last one
/// given, or nil), `parsed.values(...)` (a repeatable option) or `parsed.required(...)`.
public struct Option<Value: Sendable>: OptionDeclaration {
    /// What the parser and the help text need.
    public let spec: OptionSpec
    /// Turns the text into a value, or says why it cannot (`--sample '0' must be a whole number from 1 to 10000000`).
    let transform: @Sendable (String) throws(UsageError) -> Value

    /// An option converted by `transform`, whose error message is what the person sees. `missing`, when given, makes
    /// the option required and is the usage error's message without it (`missing --to N: the version to go back to`).
    public init(_ name: String, valueName: String, short: Character? = nil, help: String, repeatable: Bool = false,
                required: Bool = false, missing: String? = nil, environment: String? = nil,
                transform: @escaping @Sendable (String) throws(UsageError) -> Value) {
        spec = OptionSpec(name: name, short: short, valueName: valueName, help: help, repeatable: repeatable,
                          isRequired: required || missing != nil, environment: environment, missingMessage: missing)
        self.transform = transform
    }
}

extension Option where Value == String {
    /// An option whose value is the text as given.
    public init(_ name: String, valueName: String, short: Character? = nil, help: String, repeatable: Bool = false,
                required: Bool = false, missing: String? = nil, environment: String? = nil) {
        self.init(name, valueName: valueName, short: short, help: help, repeatable: repeatable, required: required,
                  missing: missing, environment: environment) { text throws(UsageError) in text }
    }
}
