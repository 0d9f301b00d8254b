import AppStoreNotifications
import FlagKit
import OutcomeAnalysis

/// The body of `POST /v1/environments/{env}/guards` (docs/guards.md, "The service"): exactly one of `change` and
/// `version`, the `rule` (`GuardRule`'s JSON), optionally `product` and `appStoreEnvironment`. Every refusal is 422
/// `invalid_guard` naming the `field` (a rule's own field as `GuardRuleError` names it).
struct GuardRequest: Sendable, Equatable {
    /// The change it rides on.
    var change: Int64?
    /// The published version it watches.
    var version: Int?
    /// The rule, validated.
    var rule: GuardRule
    /// Only this product's notifications.
    var product: String?
    /// Whose notifications it reads.
    var appStoreEnvironment: AppStoreEnvironment

    /// The members a body may have.
    static let members: Set<String> = ["change", "version", "rule", "product", "appStoreEnvironment"]

    /// Reads `body`; `invalidGuard` naming the field that is wrong.
    init(body: JSONValue) throws(ServiceError) {
        guard case .object(let members) = body else { throw Self.invalid("body", "expected a JSON object") }
        if let unknown = members.keys.filter({ !Self.members.contains($0) }).sorted().first {
            throw Self.invalid(unknown, "unknown member; a guard has \(Self.members.sorted().joined(separator: ", "))")
        }
        switch (members["change"], members["version"]) {
        case (let change?, nil):
            guard let id = change.integerValue, id >= 1 else { throw Self.invalid("change", "must be a change id (a positive integer)") }
            self.change = id
            version = nil
        case (nil, let version?):
            guard let number = version.integerValue, number >= 1, number <= Int64(Int32.max) else {
                throw Self.invalid("version", "must be a version number (a positive integer)")
            }
            change = nil
            self.version = Int(number)
        default:
            throw Self.invalid("change", "give exactly one of change and version")
        }
        guard let ruleValue = members["rule"] else { throw Self.invalid("rule", "is required") }
        do {
            rule = try GuardRule.decoding(ruleValue)
        } catch {
            throw Self.invalid(error.field, error.message)
        }
        switch members["product"] {
        case nil, .null?: product = nil
        case .string(let text)? where !text.isEmpty && text.utf8.count <= 200: product = text
        default: throw Self.invalid("product", "must be a product id of 1 to 200 bytes, or null for every product")
        }
        switch members["appStoreEnvironment"] {
        case nil, .null?: appStoreEnvironment = .production
        case .string(let text)?:
            guard let environment = AppStoreEnvironment(rawValue: text) else {
                throw Self.invalid("appStoreEnvironment", "must be one of "
                    + AppStoreEnvironment.allCases.map(\.rawValue).joined(separator: ", "))
            }
            appStoreEnvironment = environment
        default: throw Self.invalid("appStoreEnvironment", "must be a string")
        }
    }

    /// 422 `invalid_guard` with `field`.
    static func invalid(_ field: String, _ message: String) -> ServiceError {
        ServiceError(.unprocessableContent, code: "invalid_guard", message: "\(field): \(message)", extra: ["field": .string(field)])
    }
}
