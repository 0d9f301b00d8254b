import FlagKit
import FlagStore

/// The body of `POST /v1/tokens`: `{"name", "role", "environments"?}`, read strictly (an unknown member is
/// refused with its path, like a webhook's), every problem listed (`422 invalid_body`). The same checks as
/// `flagserver token create`, which the store makes again in its transaction.
struct TokenRequest: Sendable, Equatable {
    /// The token's name: recorded as the author of what it does.
    let name: String
    /// What it may do.
    let role: TokenRole
    /// The environments it is limited to; nil (absent or `null`): all, also ones created later.
    let environments: Set<String>?

    /// Reads `body`; `known` are the environments that exist.
    init(_ body: JSONValue, environments known: [String]) throws(ServiceError) {
        guard let object = body.objectValue else {
            throw Self.invalid([ValidationIssue(path: "", message: #"must be an object {"name": ..., "role": ...}"#)])
        }
        var issues: [ValidationIssue] = []
        for key in object.keys.sorted() where !["name", "role", "environments"].contains(key) {
            issues.append(ValidationIssue(path: "/" + JSONPath.escape(key), message: "unknown member"))
        }
        let name = object["name"]?.stringValue ?? ""
        if !FlagStore.isValidTokenName(name) {
            issues.append(ValidationIssue(path: "/name", message: "must be 1 to 64 letters, digits, '.', '_' or '-'"))
        }
        let role = object["role"]?.stringValue.flatMap(TokenRole.init(rawValue:))
        if role == nil { issues.append(ValidationIssue(path: "/role", message: "must be reader, writer or admin")) }
        let environments = WebhookRegistration.environments(object["environments"], known: known, issues: &issues)
        guard issues.isEmpty, let role else { throw Self.invalid(issues) }
        self.name = name
        self.role = role
        self.environments = environments
    }

    /// `422 invalid_body` with every issue.
    static func invalid(_ issues: [ValidationIssue]) -> ServiceError {
        ServiceError(.unprocessableContent, code: "invalid_body",
                     message: "the token has \(issues.count) problem\(issues.count == 1 ? "" : "s")", details: issues)
    }

    /// The store's refusal: a name an active token has is `409 token_name_taken`; a name or scope the store
    /// refuses is `422` at its path; anything else the store's error.
    static func refusal(_ error: any Error) -> ServiceError {
        switch error as? FlagStoreError {
        case .tokenNameTaken(let name)?:
            return ServiceError(.conflict, code: "token_name_taken",
                                message: "an active token is named '\(name)'; revoke it first or choose another name",
                                extra: ["name": .string(name)])
        case .invalidTokenName?:
            return invalid([ValidationIssue(path: "/name", message: "must be 1 to 64 letters, digits, '.', '_' or '-'")])
        case .unknownEnvironment(let name, let known)?:
            return invalid([ValidationIssue(path: "/environments",
                                            message: "unknown environment '\(name)' (known: \(known.joined(separator: ", ")))")])
        default:
            return ServiceError.store(error)
        }
    }
}
