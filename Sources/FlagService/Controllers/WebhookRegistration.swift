import FlagKit
import FlagStore

/// The body of `POST /v1/webhooks`: `{"url", "events", "environments"?, "secret"?}`, read strictly (an unknown
/// member is refused with its path, like a policy's), every problem listed (`422 invalid_body`).
struct WebhookRegistration: Sendable, Equatable {
    /// Where deliveries go: `http` or `https`, a host, no user information.
    let url: String
    /// Event types (`WebhookEvent.types`) or `*`; the store checks the names.
    let events: [String]
    /// The environments it is limited to; nil (absent or `null`): all.
    let environments: Set<String>?
    /// The HMAC key; nil: one is generated.
    let secret: String?

    /// Reads `body`; `known` are the environments that exist.
    init(_ body: JSONValue, environments known: [String]) throws(ServiceError) {
        guard let object = body.objectValue else {
            throw ServiceError(.unprocessableContent, code: "invalid_body", message: #"expected {"url": ..., "events": [...]}"#,
                               details: [ValidationIssue(path: "", message: "must be an object")])
        }
        var issues: [ValidationIssue] = []
        for key in object.keys.sorted() where !["url", "events", "environments", "secret"].contains(key) {
            issues.append(ValidationIssue(path: "/" + JSONPath.escape(key), message: "unknown member"))
        }
        let url = object["url"]?.stringValue ?? ""
        if object["url"]?.stringValue == nil {
            issues.append(ValidationIssue(path: "/url", message: "must be a string (an http or https URL)"))
        } else if let problem = Self.urlProblem(url) {
            issues.append(ValidationIssue(path: "/url", message: problem))
        }
        let events = Self.strings(object["events"], path: "/events", issues: &issues) ?? []
        if object["events"] != nil, events.isEmpty, issues.allSatisfy({ !$0.path.hasPrefix("/events") }) {
            issues.append(ValidationIssue(path: "/events", message: #"must name at least one event (or "*")"#))
        }
        let environments = Self.environments(object["environments"], known: known, issues: &issues)
        var secret: String?
        if let value = object["secret"], value != .null {
            if let text = value.stringValue, !text.isEmpty, text.utf8.count <= 200 {
                secret = text
            } else {
                issues.append(ValidationIssue(path: "/secret", message: "must be a string of 1 to 200 bytes (absent: one is generated)"))
            }
        }
        guard issues.isEmpty else { throw Self.invalid(issues) }
        self.url = url
        self.events = events
        self.environments = environments
        self.secret = secret
    }

    /// Why `url` cannot be a webhook's, or nil. The store checks the scheme, the host and the characters; user
    /// information (`https://user:pass@host/`) is refused here: credentials in a URL end up in logs and lists.
    static func urlProblem(_ url: String) -> String? {
        guard let schemeEnd = url.range(of: "://") else { return "must start with https:// or http://" }
        let authority = url[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if authority.contains("@") { return "must not contain user information (user:password@); put a secret in the webhook instead" }
        return nil
    }

    /// An `environments` member (of a webhook or a token): existing names, or nil (absent or `null`) for all; an
    /// empty list or an unknown name is an issue at its path.
    static func environments(_ value: JSONValue?, known: [String], issues: inout [ValidationIssue]) -> Set<String>? {
        guard let value, value != .null else { return nil }
        let names = strings(value, path: "/environments", issues: &issues) ?? []
        if names.isEmpty, value.arrayValue?.isEmpty == true {
            issues.append(ValidationIssue(path: "/environments", message: "must name at least one environment (null: all)"))
        }
        for (index, name) in names.enumerated() where !known.contains(name) {
            issues.append(ValidationIssue(path: "/environments/\(index)",
                                          message: "unknown environment '\(name)' (known: \(known.joined(separator: ", ")))"))
        }
        return Set(names)
    }

    /// A JSON array of strings, or nil with an issue at `path`.
    static func strings(_ value: JSONValue?, path: String, issues: inout [ValidationIssue]) -> [String]? {
        guard let array = value?.arrayValue else {
            issues.append(ValidationIssue(path: path, message: "must be an array of strings"))
            return nil
        }
        var result: [String] = []
        for (index, element) in array.enumerated() {
            guard let text = element.stringValue else {
                issues.append(ValidationIssue(path: "\(path)/\(index)", message: "must be a string"))
                continue
            }
            result.append(text)
        }
        return result
    }

    /// `422 invalid_body` with every issue.
    static func invalid(_ issues: [ValidationIssue]) -> ServiceError {
        ServiceError(.unprocessableContent, code: "invalid_body",
                     message: "the webhook has \(issues.count) problem\(issues.count == 1 ? "" : "s")", details: issues)
    }

    /// The store's refusal of a registration: its argument checks (url, events, secret) as `422 invalid_body`
    /// at that member's path; anything else as the store's error.
    static func refusal(_ error: any Error) -> ServiceError {
        if case FlagStoreError.invalidArgument(let name, let reason)? = error as? FlagStoreError,
           ["url", "events", "secret", "environments"].contains(name) {
            return invalid([ValidationIssue(path: "/\(name)", message: reason)])
        }
        return ServiceError.store(error)
    }
}
