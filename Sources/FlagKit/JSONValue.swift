/// A JSON value as FlagKit sees it: flag values, defaults, cohort operands and context attributes.
///
/// Integers are kept apart from other numbers so that `integer` flags can be checked exactly and
/// encoded without a decimal point; a literal such as `1.0` that is integral and fits `Int64` is read
/// as `.integer(1)` (JSON does not tell the two apart, and the canonical form must not either).
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number without a fractional part that fits `Int64`.
    case integer(Int64)
    /// Any other finite number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; member order carries no meaning.
    case object([String: JSONValue])

    /// The name of the JSON type, for error messages (`"string"`, `"boolean"`, ...).
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The value when this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value when this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The value when this is an integer.
    public var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The value as a `Double` when this is any number.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    /// The members when this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The elements when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// Builds a number the way the parser does: integral values that fit `Int64` become `.integer`.
    public static func numeric(_ value: Double) -> JSONValue {
        if value.rounded() == value, value >= -9.223_372_036_854_775e18, value < 9.223_372_036_854_775e18 {
            return .integer(Int64(value))
        }
        return .number(value)
    }
}

extension JSONValue: ExpressibleByBooleanLiteral, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    /// `true` / `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A float literal (normalized as the parser would).
    public init(floatLiteral value: Double) { self = .numeric(value) }
    /// `nil` as JSON `null`.
    public init(nilLiteral: ()) { self = .null }
    /// An array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// A dictionary literal; a repeated key keeps the last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONValue: CustomStringConvertible {
    /// Compact canonical JSON text, as used in messages and diffs.
    public var description: String { canonicalString }
}
