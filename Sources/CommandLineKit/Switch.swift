/// An option without a value (`--json`); its value is whether it was given.
///
/// Declared once, as a static property of the command, and read with ``ParsedArguments/isSet(_:)``.
public struct Switch: OptionDeclaration {
    /// The values of a switch's environment variable that set it (compared without case); any other value leaves it off.
    public static let environmentTrueValues: Set<String> = ["1", "true", "yes"]

    /// What the parser and the help text need.
    public let spec: OptionSpec

    /// `--name` (and `-s` when `short` is given); `environment` sets it when the variable is `1`, `true` or `yes`.
    public init(_ name: String, short: Character? = nil, help: String, environment: String? = nil) {
        spec = OptionSpec(name: name, short: short, valueName: nil, help: help, environment: environment)
    }
}
