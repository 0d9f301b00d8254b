import FlagKit

/// What `PUT /v1/environments/{env}/flags/{key}` asks for: a whole flag definition, or a bare value
/// meaning "this value for everyone".
public enum FlagEdit: Sendable, Equatable {
    /// A full flag object (`{"type": "boolean", "default": false, "rules": [...]}`), replacing the flag.
    case definition(JSONValue)
    /// A bare JSON value: the flag's default becomes this value and its rules are dropped; the type,
    /// description, prerequisites and salt of an existing flag are kept.
    case value(JSONValue)

    /// Reads a body: an object with a string `type` naming a flag type AND a `default` member is a
    /// definition; anything else (including other objects, for `json` flags) is a bare value.
    public init(_ body: JSONValue) {
        if case .object(let members) = body, let type = members["type"]?.stringValue, FlagType(rawValue: type) != nil,
           members["default"] != nil {
            self = .definition(body)
        } else {
            self = .value(body)
        }
    }

    /// The type a new flag gets from a bare value: `true` boolean, `3` integer, `2.5` number, `"x"` string,
    /// anything else `json`.
    public static func inferredType(of value: JSONValue) -> FlagType {
        switch value {
        case .bool: .boolean
        case .integer: .integer
        case .number: .number
        case .string: .string
        default: .json
        }
    }

    /// The document with this edit applied to flag `key`, validated as a whole (paths are document paths).
    /// Throws 422 (`type_mismatch` or `invalid_document`) listing what is wrong.
    public func apply(to document: FlagDocument?, key: String) throws(ServiceError) -> FlagDocument {
        let replacement: JSONValue
        switch self {
        case .definition(let definition):
            replacement = definition
        case .value(let value):
            guard let existing = document?.flags[key] else {
                replacement = Flag(type: Self.inferredType(of: value), defaultValue: value).jsonValue
                break
            }
            // A flip: the result is valid without re-validating the whole document (see `settingDefault`).
            guard let edited = document?.settingDefault(value, for: key) else {
                throw ServiceError(
                    .unprocessableContent, code: "type_mismatch",
                    message: "flag '\(key)' is \(existing.type.rawValue); got \(value.typeName)",
                    details: [ValidationIssue(path: "/flags/\(JSONPath.escape(key))/default",
                                              message: "expected \(existing.type.rawValue), got \(value.typeName)")])
            }
            return edited
        }
        var root = document?.jsonValue.objectValue ?? [:]
        var flags = root["flags"]?.objectValue ?? [:]
        flags[key] = replacement
        root["flags"] = .object(flags)
        do {
            return try FlagDocument(validating: .object(root))
        } catch {
            throw ServiceError.document(error)
        }
    }

}
