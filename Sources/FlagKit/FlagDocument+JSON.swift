/// Reading and writing flag documents as JSON.
extension FlagDocument {
    /// Decodes and validates a document from JSON bytes.
    ///
    /// Throws `.malformedJSON` with line and column for text that is not JSON, and `.invalid` with
    /// every problem (duplicate keys included) and its JSON path otherwise.
    public static func decode<Bytes: Sequence>(_ bytes: Bytes) throws(FlagDocumentError) -> FlagDocument where Bytes.Element == UInt8 {
        try FlagDocumentError.decoding(bytes) { value throws(FlagDocumentError) in try FlagDocument(validating: value) }
    }

    /// Decodes and validates a document from JSON text.
    public static func decode(_ text: String) throws(FlagDocumentError) -> FlagDocument { try decode(Array(text.utf8)) }

    /// Validates a parsed JSON value as a document.
    public init(validating json: JSONValue) throws(FlagDocumentError) {
        var decoder = DocumentDecoder()
        guard let document = decoder.decodeDocument(json), decoder.issues.isEmpty else { throw .invalid(decoder.issues) }
        self = document
    }

    /// Every problem of `bytes` as a document; empty when it is valid.
    public static func problems<Bytes: Sequence>(in bytes: Bytes) -> [ValidationIssue] where Bytes.Element == UInt8 {
        do {
            _ = try decode(bytes)
            return []
        } catch {
            return error.issues
        }
    }

    /// The document as a JSON value, in the same shape it is read from.
    public var jsonValue: JSONValue {
        var root: [String: JSONValue] = ["flags": .object(flags.mapValues(\.jsonValue))]
        if !cohorts.isEmpty { root["cohorts"] = .object(cohorts.mapValues(\.jsonValue)) }
        return .object(root)
    }

    /// The canonical bytes (sorted keys, no whitespace): equal content gives equal bytes.
    public var canonicalBytes: [UInt8] { jsonValue.canonicalBytes }

    /// SHA-256 of the canonical bytes in hex: the identity of the content.
    public var contentHash: String { SHA256.hexDigest(canonicalBytes) }

    /// Indented, sorted JSON for files under `flags/` and for people.
    public var prettyJSON: String { jsonValue.prettyString }
}

extension Flag {
    /// The flag as JSON; empty `rules` and `requires` are left out.
    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = ["type": .string(type.rawValue), "default": defaultValue]
        if let description { object["description"] = .string(description) }
        if !rules.isEmpty { object["rules"] = .array(rules.map(\.jsonValue)) }
        if !requires.isEmpty { object["requires"] = .object(requires) }
        if let salt { object["salt"] = .string(salt) }
        return .object(object)
    }
}

extension Rule {
    /// The rule as JSON.
    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = ["value": value]
        if let cohort { object["cohort"] = .string(cohort) }
        if let rollout { object["rollout"] = rollout.jsonValue }
        return .object(object)
    }
}

extension Condition {
    /// The condition as the JSON object it was read from.
    public var jsonValue: JSONValue {
        .object(Dictionary(members.map { ($0.key, $0.jsonValue) }, uniquingKeysWith: { first, _ in first }))
    }
}

extension ConditionMember {
    /// The member's value in its condition object.
    public var jsonValue: JSONValue {
        switch self {
        case .attribute(_, let predicates):
            .object(Dictionary(predicates.map { ($0.op.rawValue, $0.operand) }, uniquingKeysWith: { first, _ in first }))
        case .all(let conditions), .any(let conditions): .array(conditions.map(\.jsonValue))
        case .not(let condition): condition.jsonValue
        case .cohort(let name): .string(name)
        }
    }
}
