import FlagKit
import Foundation

/// The body of `POST /v1/environments/{env}/offer-signatures` (docs/api.md, "Offer signatures"): `product` and `offer`
/// (App Store Connect identifiers, as an experiment arm's `product/offer` names them), optionally `appAccountToken` (a
/// UUID, any case; null or absent for none) and `flag` (the string flag whose arms may name the offer, default
/// `paywallProduct`). Every refusal is 422 `invalid_request` with the JSON pointer (RFC 6901) of the member.
struct OfferSignatureRequest: Sendable, Equatable {
    /// The flag whose arms are looked at when the body names none: SymiPlus's paywall experiment.
    static let defaultFlag = "paywallProduct"
    /// The members a body may have.
    static let members: Set<String> = ["product", "offer", "appAccountToken", "flag"]

    /// The subscription's product id.
    var product: String
    /// The promotional offer's identifier.
    var offer: String
    /// The purchase's `appAccountToken`, signed as the payload's application username.
    var appAccountToken: UUID?
    /// The flag whose arms must name `product/offer`.
    var flag: String

    /// The arm value that names this offer: `product/offer`.
    var armValue: String { "\(product)/\(offer)" }

    /// Reads `body`; 422 `invalid_request` at the path of what is wrong.
    init(body: JSONValue) throws(ServiceError) {
        guard case .object(let members) = body else { throw Self.invalid("", "expected a JSON object with product and offer") }
        if let unknown = members.keys.filter({ !Self.members.contains($0) }).sorted().first {
            throw Self.invalid("/" + JSONPath.escape(unknown), "unknown member; a request has " + Self.members.sorted().joined(separator: ", "))
        }
        product = try Self.identifier(members, "product")
        offer = try Self.identifier(members, "offer")
        switch members["appAccountToken"] {
        case nil, .null?:
            appAccountToken = nil
        case .string(let text)?:
            guard text.utf8.count == 36, let uuid = UUID(uuidString: text) else {
                throw Self.invalid("/appAccountToken", "must be a UUID (8-4-4-4-12 hexadecimal digits), the purchase's appAccountToken")
            }
            appAccountToken = uuid
        default:
            throw Self.invalid("/appAccountToken", "must be a UUID string or null")
        }
        switch members["flag"] {
        case nil, .null?: flag = Self.defaultFlag
        // Counted in code points, as JSON Schema's maxLength counts (docs/openapi.yaml).
        case .string(let text)? where !text.isEmpty && text.unicodeScalars.count <= 200: flag = text
        default: throw Self.invalid("/flag", "must be a flag key of 1 to 200 characters")
        }
    }

    /// Member `name`: an App Store Connect identifier (what an experiment arm may name, `ExperimentSplit.parse`).
    private static func identifier(_ members: [String: JSONValue], _ name: String) throws(ServiceError) -> String {
        guard let value = members[name] else { throw invalid("/\(name)", "is required") }
        guard let text = value.stringValue, let parsed = ExperimentSplit.parse(text), parsed.offer == nil else {
            throw invalid("/\(name)", "must be an App Store Connect identifier: 1 to 100 letters, digits, '.', '_' or '-'")
        }
        return text
    }

    /// 422 `invalid_request` naming `path`.
    static func invalid(_ path: String, _ message: String) -> ServiceError {
        ServiceError(.unprocessableContent, code: "invalid_request", message: "\(path.isEmpty ? "the body" : path): \(message)",
                     details: [ValidationIssue(path: path, message: message)])
    }
}
