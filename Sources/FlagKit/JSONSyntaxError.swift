/// JSON text that is not well-formed (RFC 8259), with where it went wrong.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based line of the offending byte.
    public let line: Int
    /// 1-based column (in bytes) of the offending byte.
    public let column: Int
    /// 0-based byte offset of the offending byte.
    public let offset: Int
    /// What was expected or found.
    public let message: String

    /// Creates an error at a position.
    public init(line: Int, column: Int, offset: Int, message: String) {
        self.line = line
        self.column = column
        self.offset = offset
        self.message = message
    }

    /// `line 3, column 14: expected ',' or '}' after an object member`.
    public var description: String { "line \(line), column \(column): \(message)" }
}
