import FlagKit

/// What `PUT /v1/environments/{env}/flags/{key}` asks for: a whole flag definition, or a bare value
/// meaning "this value for everyone".
public enum FlagEdit: Sendable, Equatable {
    /// A full flag object (`{"type": "boolean", "default": false, "rules": [...]}`), replacing the flag.
    case definition(JSONValue)
    /// A bare JSON value: the flag's default becomes this value and its rules are dropped; the type,
    /// description, prerequisites and salt of the flag are kept. The flag must exist (422 `unknown_flag`).
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

    /// 422 `unknown_flag` for a bare value sent to a key the document does not have: names the key, the
    /// closest existing keys, and how to create a flag on purpose.
    static func unknownFlag(_ key: String, value: JSONValue, known: [String]) -> ServiceError {
        let closest = KeySuggestions.closest(to: key, in: known)
        let suggestion = closest.isEmpty ? "" : "; did you mean \(closest.map { "'\($0)'" }.joined(separator: " or "))?"
        let type = inferredType(of: value).rawValue
        let text = value.canonicalString
        let example = text.utf8.count <= 80 ? text : "..."  // the message quotes a value, not a whole body
        let create = #"to create it, send its full definition, e.g. {"type": "\#(type)", "default": \#(example)}"#
        return ServiceError(
            .unprocessableContent, code: "unknown_flag",
            message: "there is no flag '\(key)'\(suggestion) (a bare value only changes an existing flag; \(create))",
            details: [ValidationIssue(path: "/flags/\(JSONPath.escape(key))", message: "unknown flag")],
            extra: ["key": .string(key), "closest": .array(closest.map { .string($0) })])
    }

    /// The type a bare value suggests (for the example definition in an `unknown_flag` refusal): `true`
    /// boolean, `3` integer, `2.5` number, `"x"` string, anything else `json`.
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
                // A bare value only flips a flag that exists: a typo in the key must not publish a new flag.
                throw Self.unknownFlag(key, value: value, known: document.map { Array($0.flags.keys) } ?? [])
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
