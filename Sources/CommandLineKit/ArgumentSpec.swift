/// What the parser and the help text know about a positional argument, whatever the type of its value.
public struct ArgumentSpec: Sendable, Equatable {
    /// How many values the argument takes.
    public enum Arity: Sendable, Equatable {
        /// Exactly one.
        case one
        /// Zero or one.
        case optional
        /// One or more.
        case oneOrMore
    }

    /// The placeholder in usage lines (`file`).
    public let name: String
    /// How many values it takes.
    public let arity: Arity
    /// One line saying what the argument is.
    public let help: String

    /// A description; the typed declaration (`Argument`) builds these.
    public init(_ name: String, _ arity: Arity = .one, help: String) {
        self.name = name
        self.arity = arity
        self.help = help
    }

    /// `<file>`, `[<flag>]`, `<file>...`.
    public var synopsis: String {
        switch arity {
        case .one: "<\(name)>"
        case .optional: "[<\(name)>]"
        case .oneOrMore: "<\(name)>..."
        }
    }
}

/// A typed positional argument declaration (`Argument`), as a command lists it in its configuration.
public protocol ArgumentDeclaration: Sendable {
    /// What the parser and the help text need.
    var spec: ArgumentSpec { get }
}
