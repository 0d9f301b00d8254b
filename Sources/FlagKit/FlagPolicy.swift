/// What an environment's policy says about one flag (`docs/governance.md`, "Policies"): whether changing it
/// needs a second person, who owns it, and when it should be gone. Kept apart from the flag document on
/// purpose: the app's strict decoder would refuse these members in a served document.
public struct FlagPolicy: Sendable, Equatable {
    /// A change that touches this flag needs approval by a second person.
    public var isProtected: Bool
    /// The team or person who owns the flag (1...200 UTF-8 bytes), for the stale-flag listing.
    public var owner: String?
    /// The day after which the flag should have been removed (`flagctl stale` lists it from then on).
    public var removeAfter: CalendarDate?

    /// The longest `owner`, in UTF-8 bytes.
    public static let maximumOwnerBytes = 200

    /// A flag policy; nothing set is the same as the flag not being named in the policy.
    public init(isProtected: Bool = false, owner: String? = nil, removeAfter: CalendarDate? = nil) {
        self.isProtected = isProtected
        self.owner = owner
        self.removeAfter = removeAfter
    }

    /// The members that are set: `protected` only when true (false is the default, and one canonical form
    /// per meaning keeps `policy.update` audit details free of no-op differences), `owner`, `removeAfter`.
    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = [:]
        if isProtected { object["protected"] = true }
        if let owner { object["owner"] = .string(owner) }
        if let removeAfter { object["removeAfter"] = .string(removeAfter.description) }
        return .object(object)
    }

    /// Checks one member of a policy's `flags` at `path`, appending every problem to `issues`; nil when
    /// there was one. Members: `protected` (boolean), `owner` (string, 1...200 bytes), `removeAfter`
    /// (`YYYY-MM-DD`); anything else is refused by name.
    static func decode(_ value: JSONValue, at path: String, issues: inout [ValidationIssue]) -> FlagPolicy? {
        guard case .object(let members) = value else {
            issues.append(ValidationIssue(path: path, message:
                "must be an object with optional \"protected\", \"owner\" and \"removeAfter\" (got \(value.typeName))"))
            return nil
        }
        let before = issues.count
        for key in members.keys.sorted(by: JSONValue.utf8Order) where !["protected", "owner", "removeAfter"].contains(key) {
            issues.append(ValidationIssue(path: JSONPath.appending(path, key),
                                          message: "unknown key (expected one of: owner, protected, removeAfter)"))
        }
        var policy = FlagPolicy()
        switch members["protected"] {
        case nil: break
        case .bool(let flag)?: policy.isProtected = flag
        case let other?:
            issues.append(ValidationIssue(path: path + "/protected", message: "must be true or false (got \(other.typeName))"))
        }
        switch members["owner"] {
        case nil: break
        case .string(let owner)? where !owner.isEmpty && owner.utf8.count <= maximumOwnerBytes: policy.owner = owner
        case .string(let owner)?:
            issues.append(ValidationIssue(path: path + "/owner",
                                          message: "must be 1-\(maximumOwnerBytes) bytes (got \(owner.utf8.count))"))
        case let other?:
            issues.append(ValidationIssue(path: path + "/owner", message: "must be a string (got \(other.typeName))"))
        }
        switch members["removeAfter"] {
        case nil: break
        case .string(let text)?:
            do {
                policy.removeAfter = try CalendarDate.parse(text, path: path + "/removeAfter")
            } catch {
                issues.append(contentsOf: error.issues)
            }
        case let other?:
            issues.append(ValidationIssue(path: path + "/removeAfter", message: "must be a date YYYY-MM-DD (got \(other.typeName))"))
        }
        return issues.count == before ? policy : nil
    }
}
