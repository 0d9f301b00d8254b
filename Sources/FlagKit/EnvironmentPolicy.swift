/// One environment's governance policy (`docs/governance.md`, "Policies"): which changes need a second
/// person, how long a change request waits for one, and per-flag owners and removal dates.
///
/// ```json
/// {"protected": false, "requestTTLHours": 72,
///  "flags": {"checkoutEnabled": {"protected": true, "owner": "payments"}}}
/// ```
public struct EnvironmentPolicy: Sendable, Equatable {
    /// Every change of the environment needs approval (`"protected": true` at the top).
    public var isProtected: Bool
    /// How long a change request stays pending before it expires, in hours (1...720).
    public var requestTTLHours: Int
    /// Per-flag policies by key. A key need not name an existing flag (a policy may come first).
    public var flags: [String: FlagPolicy]

    /// The request lifetime when a policy does not say.
    public static let defaultRequestTTLHours = 72
    /// The allowed request lifetimes, in hours: one hour to thirty days.
    public static let requestTTLHoursRange = 1...720

    /// A policy; the defaults are the default policy's.
    public init(isProtected: Bool = false, requestTTLHours: Int = defaultRequestTTLHours, flags: [String: FlagPolicy] = [:]) {
        self.isProtected = isProtected
        self.requestTTLHours = requestTTLHours
        self.flags = flags
    }

    /// The policy of an environment nobody set one for: nothing protected, requests live 72 hours.
    public static let `default` = EnvironmentPolicy()

    /// How long a change request stays pending, in milliseconds (for `expiresAt`).
    public var requestTTLMilliseconds: Int64 { Int64(requestTTLHours) * 3_600_000 }

    /// Whether a change touching flag `key` needs approval: the environment is protected, or the flag is.
    public func isProtected(flag key: String) -> Bool {
        isProtected || flags[key]?.isProtected == true
    }

    /// The protected flags among `touched` (`ChangeSet.touchedFlags`), each once, in UTF-8 order; a change
    /// needs approval exactly when this is not empty.
    public func protectedFlags<Keys: Sequence>(in touched: Keys) -> [String] where Keys.Element == String {
        Set(touched.filter(isProtected(flag:))).sorted(by: JSONValue.utf8Order)
    }

    /// The canonical form: `protected`, `requestTTLHours` and `flags` always written, each flag with the
    /// members it sets (`FlagPolicy.jsonValue`).
    public var jsonValue: JSONValue {
        ["protected": .bool(isProtected), "requestTTLHours": .integer(Int64(requestTTLHours)),
         "flags": .object(flags.mapValues(\.jsonValue))]
    }

    /// The canonical bytes: what the store keeps and the audit's `policy.update` detail shows.
    public var canonicalBytes: [UInt8] { jsonValue.canonicalBytes }

    /// Decodes a policy strictly from JSON bytes: `.malformedJSON` with line and column, or `.invalid` with
    /// every problem and its JSON path (duplicate and unknown keys included).
    public static func decode<Bytes: Sequence>(_ bytes: Bytes) throws(FlagDocumentError) -> EnvironmentPolicy
    where Bytes.Element == UInt8 {
        try FlagDocumentError.decoding(bytes) { value throws(FlagDocumentError) in try EnvironmentPolicy(validating: value) }
    }

    /// Checks a parsed policy: an object whose members are all optional, `protected` (boolean),
    /// `requestTTLHours` (integer 1...720) and `flags` (flag key to `FlagPolicy`). Unknown members are refused
    /// with their path, and every problem is reported, not only the first.
    public init(validating json: JSONValue) throws(FlagDocumentError) {
        guard case .object(let members) = json else {
            throw .invalid([ValidationIssue(path: "", message: "must be a policy object (got \(json.typeName))")])
        }
        var issues: [ValidationIssue] = []
        for key in members.keys.sorted(by: JSONValue.utf8Order) where !["protected", "requestTTLHours", "flags"].contains(key) {
            issues.append(ValidationIssue(path: JSONPath.pointer([key]),
                                          message: "unknown key (expected one of: flags, protected, requestTTLHours)"))
        }
        var policy = EnvironmentPolicy()
        switch members["protected"] {
        case nil: break
        case .bool(let flag)?: policy.isProtected = flag
        case let other?: issues.append(ValidationIssue(path: "/protected", message: "must be true or false (got \(other.typeName))"))
        }
        switch members["requestTTLHours"] {
        case nil: break
        case .integer(let hours)? where Self.requestTTLHoursRange.contains(Int(clamping: hours)):
            policy.requestTTLHours = Int(hours)
        case let other?:
            issues.append(ValidationIssue(path: "/requestTTLHours", message: "must be an integer from "
                + "\(Self.requestTTLHoursRange.lowerBound) to \(Self.requestTTLHoursRange.upperBound) (got \(other))"))
        }
        switch members["flags"] {
        case nil: break
        case .object(let entries)?:
            for key in entries.keys.sorted(by: JSONValue.utf8Order) {
                let path = JSONPath.appending("/flags", key)
                if !DocumentDecoder.isValidKey(key) {
                    issues.append(ValidationIssue(path: path, message: "flag key must be 1-128 characters of A-Z a-z 0-9 . _ -"))
                }
                if let flag = FlagPolicy.decode(entries[key, default: .null], at: path, issues: &issues) { policy.flags[key] = flag }
            }
        case let other?:
            issues.append(ValidationIssue(path: "/flags", message: "must be an object of flag policies (got \(other.typeName))"))
        }
        guard issues.isEmpty else { throw .invalid(issues) }
        self = policy
    }
}
