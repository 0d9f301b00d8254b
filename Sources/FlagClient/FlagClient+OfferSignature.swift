import ClientHTTP
import FlagKit
import Foundation

/// Signatures for the promotional offer of an experiment arm (`paywallProduct` = `product/offer`): the App Store
/// accepts such an offer only with a signature made by the team's In-App Purchase key, which stays on the server.
extension FlagClient {
    /// Asks the server to sign `offer` of `product` for one purchase (`POST .../offer-signatures`, with the read
    /// token). The server signs only offers an arm of the environment's `paywallProduct` names. `appAccountToken`
    /// must be the one the purchase will carry, if any. Each call gives a new nonce: use a signature for one purchase.
    public func offerSignature(product: String, offer: String, appAccountToken: UUID? = nil) async throws(OfferSignatureError)
        -> PromotionalOfferSignature {
        guard FlagCache.isValidEnvironment(configuration.environment) else {
            throw .invalidConfiguration("environment \(configuration.environment.debugDescription) is not a plain name")
        }
        // Lowercase, as Apple's payload carries it and the answer must repeat it.
        let token = appAccountToken.map { $0.uuidString.lowercased() }
        var members: [String: JSONValue] = ["product": .string(product), "offer": .string(offer)]
        if let token { members["appAccountToken"] = .string(token) }
        var request = ClientRequest(method: .post, url: configuration.offerSignaturesURL,
                                    headers: [.accept: "application/json", .contentType: "application/json"],
                                    body: Data(JSONValue.object(members).canonicalBytes))
        if let token = configuration.readToken { request.headers.set(name: .authorization, value: "Bearer \(token)") }
        let response: ClientResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw .transport(error)
        }
        guard response.status == 200 else {
            throw .httpStatus(response.status, code: Self.errorCode(response.body), body: Self.logExcerpt(response.body))
        }
        let parsed: JSONParser.Parsed
        do {
            parsed = try JSONParser.parse(response.body)
        } catch {
            throw .invalidResponse(.malformedJSON(error))
        }
        guard let object = parsed.value.objectValue else {
            throw .invalidResponse(.notAnEnvelope(path: "", problem: "an object is required"))
        }
        let signature: PromotionalOfferSignature
        do {
            signature = try PromotionalOfferSignature(validating: object)
        } catch {
            throw .invalidResponse(error)
        }
        guard signature.product == product, signature.offer == offer else {
            throw .mismatch("asked for \(product)/\(offer), signed \(signature.product)/\(signature.offer)")
        }
        guard signature.appAccountToken == token else {
            throw .mismatch("the signature covers another appAccountToken than the purchase's")
        }
        return signature
    }

    /// `error.code` of the service's error body (`{"error":{"code":"...","message":"..."}}`), if it is one.
    static func errorCode(_ body: Data) -> String? {
        guard let parsed = try? JSONParser.parse(body) else { return nil }
        return parsed.value.objectValue?["error"]?.objectValue?["code"]?.stringValue
    }
}
