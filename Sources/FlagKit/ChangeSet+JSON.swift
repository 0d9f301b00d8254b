/// A change set as JSON: `{"flags": {"<key>": <definition or null>}, "cohorts": {"<name>": <condition or null>}}`,
/// the form the store keeps and the API shows as a change's `changes`.
extension ChangeSet {
    /// Both members, always present (empty objects when nothing of that kind changes).
    public var jsonValue: JSONValue {
        ["flags": .object(flags), "cohorts": .object(cohorts)]
    }

    /// The canonical bytes (sorted keys, no whitespace): what the store writes.
    public var canonicalBytes: [UInt8] { jsonValue.canonicalBytes }

    /// Decodes a change set strictly from JSON bytes.
    ///
    /// Throws `.malformedJSON` with line and column for text that is not JSON, and `.invalid` with every
    /// problem and its JSON path otherwise (duplicate keys included); see `init(validating:)`.
    public static func decode<Bytes: Sequence>(_ bytes: Bytes) throws(FlagDocumentError) -> ChangeSet
    where Bytes.Element == UInt8 {
        try FlagDocumentError.decoding(bytes) { value throws(FlagDocumentError) in try ChangeSet(validating: value) }
    }

    /// Checks a parsed value: an object with exactly `flags` and `cohorts`, each an object whose keys are valid
    /// flag keys or cohort names (1-128 of `A-Z a-z 0-9 . _ -`) and whose values are objects (a definition) or
    /// `null` (a removal). A definition itself is validated when the change set is applied, against the whole
    /// document it lands in (a flag's rules name cohorts that only that document has).
    public init(validating json: JSONValue) throws(FlagDocumentError) {
        var issues: [ValidationIssue] = []
        guard case .object(let members) = json else {
            throw .invalid([ValidationIssue(path: "", message: "must be an object with \"flags\" and \"cohorts\" (got \(json.typeName))")])
        }
        for key in members.keys.sorted(by: JSONValue.utf8Order) where key != "flags" && key != "cohorts" {
            issues.append(ValidationIssue(path: JSONPath.pointer([key]), message: "unknown key (expected one of: cohorts, flags)"))
        }
        var parts: [ItemKind: [String: JSONValue]] = [:]
        for kind in [ItemKind.cohort, .flag] {
            let path = JSONPath.pointer([kind.rawValue])
            let noun = kind == .flag ? "flag key" : "cohort name"
            guard let value = members[kind.rawValue] else {
                issues.append(ValidationIssue(path: path, message: "is required"))
                continue
            }
            guard case .object(let items) = value else {
                issues.append(ValidationIssue(path: path, message: "must be an object of \(kind.rawValue) (got \(value.typeName))"))
                continue
            }
            for name in items.keys.sorted(by: JSONValue.utf8Order) {
                let itemPath = JSONPath.pointer([kind.rawValue, name])
                if !DocumentDecoder.isValidKey(name) {
                    issues.append(ValidationIssue(path: itemPath, message: "\(noun) must be 1-128 characters of A-Z a-z 0-9 . _ -"))
                }
                switch items[name, default: .null] {
                case .object, .null: break
                case let other:
                    issues.append(ValidationIssue(path: itemPath, message:
                        "must be a definition (an object) or null for a removal (got \(other.typeName))"))
                }
            }
            parts[kind] = items
        }
        guard issues.isEmpty else { throw .invalid(issues) }
        self.init(flags: parts[.flag] ?? [:], cohorts: parts[.cohort] ?? [:])
    }
}
