import Foundation

/// Verifies and decodes App Store Server Notifications V2 as Apple's `SignedDataVerifier` (app-store-server-library)
/// does with online checks off: ES256 only; `x5c` leaf → intermediate → one of the configured roots, every certificate
/// valid at the payload's `signedDate`; Apple's marker extensions; the bundle, app and environment configured. The
/// nested `signedTransactionInfo` and `signedRenewalInfo` are verified the same way at their own `signedDate`.
public struct SignedPayloadVerifier: Sendable {
    /// Apple's marker on the leaf (the key that signs App Store data).
    static let leafMarker = "1.2.840.113635.100.6.11.1"
    /// Apple's marker on the intermediate (Apple Worldwide Developer Relations).
    static let intermediateMarker = "1.2.840.113635.100.6.2.1"

    /// What the verifier was configured with.
    public let configuration: AppStoreVerifierConfiguration
    private let trustStore: X509TrustStore
    private let chains = VerifiedChainCache()

    /// A verifier; refuses a configuration without roots, with a root libcrypto cannot parse, or with Production
    /// among its environments but no app Apple ID (Apple's rule).
    public init(configuration: AppStoreVerifierConfiguration) throws(AppStoreVerificationError) {
        guard !configuration.rootCertificates.isEmpty else {
            throw AppStoreVerificationError(.invalidRootCertificate, "no root certificate configured")
        }
        if configuration.environments.contains(.production) && configuration.appAppleID == nil {
            throw AppStoreVerificationError(.wrongAppAppleID, "an app Apple ID is required when Production is accepted")
        }
        var roots: [X509Certificate] = []
        for (index, der) in configuration.rootCertificates.enumerated() {
            do throws(AppStoreVerificationError) {
                roots.append(try X509Certificate(der: der))
            } catch {
                throw AppStoreVerificationError(.invalidRootCertificate, "root \(index + 1): \(error.detail)")
            }
        }
        self.configuration = configuration
        trustStore = try X509TrustStore(roots: roots)
    }

    /// Verifies a POST body, `{"signedPayload": "..."}` (other members are ignored).
    public func verifyNotificationBody(_ body: [UInt8]) throws(AppStoreVerificationError) -> VerifiedNotification {
        struct Body: Decodable { var signedPayload: String }
        let decoded: Body
        do {
            decoded = try JSONDecoder().decode(Body.self, from: Data(body))
        } catch {
            throw AppStoreVerificationError(.invalidJSON, "the body is not a JSON object with a string signedPayload: \(JSONPath.describe(error))")
        }
        return try verifyNotification(signedPayload: decoded.signedPayload)
    }

    /// Verifies a `signedPayload` and the signed objects nested in it.
    public func verifyNotification(signedPayload: String) throws(AppStoreVerificationError) -> VerifiedNotification {
        let payload = try decode(NotificationPayload.self, verifying: signedPayload)
        guard let app = payload.appBlock else {
            throw AppStoreVerificationError(.wrongBundleID, "no data, summary, externalPurchaseToken or appData names the app")
        }
        let block = app.block
        guard block.bundleId == configuration.bundleID else {
            throw AppStoreVerificationError(.wrongBundleID, "bundleId \(block.bundleId.map { "\"\($0)\"" } ?? "missing"), configured \"\(configuration.bundleID)\"")
        }
        let environment = try acceptedEnvironment(app.environment)
        if environment == .production && block.appAppleId != configuration.appAppleID {
            throw AppStoreVerificationError(.wrongAppAppleID, "appAppleId \(block.appAppleId.map(String.init) ?? "missing"), configured \(configuration.appAppleID.map(String.init) ?? "none")")
        }
        var transaction: TransactionInfo?
        if let signed = payload.data?.signedTransactionInfo {
            do throws(AppStoreVerificationError) {
                let decoded = try decode(TransactionInfo.self, verifying: signed)
                guard decoded.bundleID == configuration.bundleID else {
                    throw AppStoreVerificationError(.wrongBundleID, "bundleId \(decoded.bundleID.map { "\"\($0)\"" } ?? "missing"), configured \"\(configuration.bundleID)\"")
                }
                try sameEnvironment(decoded.environment, as: environment)
                transaction = decoded
            } catch {
                throw error.within("data.signedTransactionInfo")
            }
        }
        var renewal: RenewalInfo?
        if let signed = payload.data?.signedRenewalInfo {
            do throws(AppStoreVerificationError) {
                let decoded = try decode(RenewalInfo.self, verifying: signed)
                try sameEnvironment(decoded.environment, as: environment)
                renewal = decoded
            } catch {
                throw error.within("data.signedRenewalInfo")
            }
        }
        return VerifiedNotification(notificationType: payload.notificationType, subtype: payload.subtype,
                                    notificationUUID: payload.notificationUUID, signedDate: payload.signedDate,
                                    version: payload.version, environment: environment, bundleID: configuration.bundleID,
                                    appAppleID: block.appAppleId, status: block.status, transaction: transaction,
                                    renewal: renewal)
    }

    /// A nested object belongs to its notification's environment: Apple's verifier, configured for one environment,
    /// refuses a Sandbox transaction inside a Production notification, and so does this one with several configured.
    private func sameEnvironment(_ name: String?, as notification: AppStoreEnvironment) throws(AppStoreVerificationError) {
        let nested = try acceptedEnvironment(name)
        guard nested == notification else {
            throw AppStoreVerificationError(.wrongEnvironment, "environment \"\(nested.rawValue)\", the notification's is \"\(notification.rawValue)\"")
        }
    }

    private func acceptedEnvironment(_ name: String?) throws(AppStoreVerificationError) -> AppStoreEnvironment {
        guard let name, let environment = AppStoreEnvironment(rawValue: name),
              configuration.environments.contains(environment) else {
            let accepted = configuration.environments.map(\.rawValue).sorted().joined(separator: ", ")
            throw AppStoreVerificationError(.wrongEnvironment, "environment \(name.map { "\"\($0)\"" } ?? "missing"), accepted: \(accepted)")
        }
        return environment
    }

    /// One signed object verified, then its payload decoded. The signature is checked before the chain is verified
    /// at `signedDate` so that a payload edited after signing is `invalid_signature` whatever it now says (its
    /// `signedDate` included). `x5c[2]`, the root as sent, is not read: only a configured root is trusted.
    private func decode<Payload: Decodable>(_ type: Payload.Type, verifying signed: String) throws(AppStoreVerificationError) -> Payload {
        let jws = try CompactJWS(signed)
        guard jws.header.alg == "ES256" else {
            throw AppStoreVerificationError(.unsupportedAlgorithm, "alg \(jws.header.alg.map { "\"\($0)\"" } ?? "missing"); only ES256 is accepted")
        }
        guard let x5c = jws.header.x5c, x5c.count == 3 else {
            throw AppStoreVerificationError(.invalidChain, "x5c has \(jws.header.x5c?.count ?? 0) certificates; Apple sends leaf, intermediate, root")
        }
        let key = x5c[0] + " " + x5c[1]
        let cached = chains.chain(for: key)
        var parsed: (leaf: X509Certificate, intermediate: X509Certificate)?
        if cached == nil { parsed = try Self.parseChain(x5c) }
        guard let leaf = cached?.leaf ?? parsed?.leaf else {
            throw AppStoreVerificationError(.invalidChain, "x5c[0] missing")
        }
        guard leaf.verifiesES256(signature: jws.signature, of: jws.signingInput) else {
            throw AppStoreVerificationError(.invalidSignature, "the ES256 signature does not verify with x5c[0]'s P-256 key")
        }
        let signedDate: Int64
        do {
            signedDate = try JSONDecoder().decode(SignedDate.self, from: jws.payload).signedDate
        } catch {
            throw AppStoreVerificationError(.invalidPayload, JSONPath.describe(error))
        }
        var chain: VerifiedChainCache.Chain
        if let cached {
            chain = cached
        } else if let parsed {
            chain = try verifyChain(leaf: parsed.leaf, intermediate: parsed.intermediate)
            chains.insert(chain, for: key)
        } else {
            throw AppStoreVerificationError(.invalidChain, "x5c not parsed")
        }
        // Apple's library checks the chain at signedDate in whole seconds (floor), notAfter inclusive.
        let seconds = signedDate >= 0 ? signedDate / 1000 : (signedDate - 999) / 1000
        guard chain.notBefore <= seconds && seconds <= chain.notAfter else {
            throw AppStoreVerificationError(.certificateNotValidAtSignedDate, "signedDate \(signedDate) is outside the chain's validity, \(chain.notBefore) through \(chain.notAfter) (seconds)")
        }
        do {
            return try JSONDecoder().decode(Payload.self, from: jws.payload)
        } catch {
            throw AppStoreVerificationError(.invalidPayload, JSONPath.describe(error))
        }
    }

    /// x5c[0] and x5c[1] parsed (x5c[2], the root as sent, is not read), in order: the leaf is no CA and the
    /// intermediate is its issuer; checked before the signature so that a chain out of order is named as such rather
    /// than as a signature by the wrong key.
    private static func parseChain(_ x5c: [String]) throws(AppStoreVerificationError) -> (leaf: X509Certificate, intermediate: X509Certificate) {
        var certificates: [X509Certificate] = []
        for (index, encoded) in x5c.prefix(2).enumerated() {
            // x5c members are base64 (RFC 7515 §4.1.6), not base64url.
            guard let der = Data(base64Encoded: encoded) else {
                throw AppStoreVerificationError(.invalidChain, "x5c[\(index)] is not base64")
            }
            do throws(AppStoreVerificationError) {
                certificates.append(try X509Certificate(der: [UInt8](der)))
            } catch {
                throw AppStoreVerificationError(.invalidChain, "x5c[\(index)]: \(error.detail)")
            }
        }
        guard certificates.count == 2, !certificates[0].isCA, certificates[0].isIssued(by: certificates[1]) else {
            throw AppStoreVerificationError(.invalidChain, "x5c[0] is a CA or x5c[1] is not its issuer; Apple sends leaf, intermediate, root")
        }
        return (certificates[0], certificates[1])
    }

    /// The chain to a configured root and Apple's markers; its dates are checked against each payload.
    private func verifyChain(leaf: X509Certificate, intermediate: X509Certificate) throws(AppStoreVerificationError) -> VerifiedChainCache.Chain {
        let notBefore: Int64, notAfter: Int64
        switch trustStore.verify(leaf: leaf, intermediate: intermediate) {
        case .valid(let from, let until): (notBefore, notAfter) = (from, until)
        case .invalid(let message): throw AppStoreVerificationError(.invalidChain, message)
        }
        guard leaf.hasExtension(oid: Self.leafMarker) else {
            throw AppStoreVerificationError(.missingMarker, "the leaf has no extension \(Self.leafMarker)")
        }
        guard intermediate.hasExtension(oid: Self.intermediateMarker) else {
            throw AppStoreVerificationError(.missingMarker, "the intermediate has no extension \(Self.intermediateMarker)")
        }
        return VerifiedChainCache.Chain(leaf: leaf, notBefore: notBefore, notAfter: notAfter)
    }
}

/// The one member read before the chain is checked: the date it is checked at.
private struct SignedDate: Decodable {
    var signedDate: Int64
}
