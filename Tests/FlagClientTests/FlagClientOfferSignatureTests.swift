import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagClient

/// ``FlagClient/offerSignature(product:offer:appAccountToken:)`` against the real `flagserver` holding a throw-away
/// In-App Purchase key: the signature verifies with the key's public half (the `openssl` command line) over Apple's
/// payload, on every transport of the build; an offer no arm names and a server without a key are refused with the
/// server's error code.
@Suite(.serialized) struct FlagClientOfferSignatureTests {
    static let bundleID = "app.symi.journal"
    static let keyID = "SYMIKEY001"
    static let arm = "symi_plus_monthly_499/winback_50"

    /// Apple's payload for a signature (bundle id, key id, product, offer, application username, nonce, timestamp,
    /// separated by U+2063 INVISIBLE SEPARATOR).
    static func payload(_ signature: PromotionalOfferSignature) -> String {
        [bundleID, signature.keyID, signature.product, signature.offer, signature.appAccountToken ?? "", signature.nonce,
         String(signature.timestamp)].joined(separator: "\u{2063}")
    }

    /// Whether `signature` verifies over Apple's payload with `key`'s public half.
    static func verifies(_ signature: PromotionalOfferSignature, key: OfferSigningKey, in directory: URL) throws -> Bool {
        guard let der = Data(base64Encoded: signature.signature) else { return false }
        return try key.verifies(der, over: payload(signature), scratch: directory)
    }

    @Test func theServerSignsTheArmsOfferAndTheSignatureVerifies() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = try OfferSigningKey(in: directory.url)
        let server = try await offPool {
            try SeededFlagServer(directory: directory.url, tokenName: "t", arguments: [
                "--log-level", "warning", "--loops", "1", "--appstore-offer-key", key.privateKeyPath, "--appstore-offer-key-id", Self.keyID,
                "--appstore-bundle-id", Self.bundleID,
            ])
        }
        defer { server.stop() }
        let reader = try server.token(name: "app", role: "reader")
        let split = #"{"type": "string", "default": "", "rules": [{"value": "\#(Self.arm)", "rollout": 50}]}"#
        #expect(try await server.curlPutOffPool("/v1/environments/production/flags/paywallProduct", json: split) == 200)

        for kind in TransportKind.allCases {
            var configuration = TestClients.configuration(server.baseURL, directory.url.appendingPathComponent("app-\(kind)"), transport: kind)
            configuration.readToken = reader
            let client = FlagClient(configuration: configuration)
            let first = try await client.offerSignature(product: "symi_plus_monthly_499", offer: "winback_50")
            #expect(first.keyID == Self.keyID && first.appAccountToken == nil, "\(kind)")
            #expect(try Self.verifies(first, key: key, in: directory.url), "\(kind): \(first)")
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            #expect(first.isUsable(at: now), "\(kind): signed at \(first.timestamp), now \(now)")

            // The purchase's appAccountToken is covered; another request gets another nonce.
            let account = UUID()
            let second = try await client.offerSignature(product: "symi_plus_monthly_499", offer: "winback_50", appAccountToken: account)
            #expect(second.appAccountToken == account.uuidString.lowercased() && second.nonce != first.nonce, "\(kind)")
            #expect(try Self.verifies(second, key: key, in: directory.url), "\(kind)")
            var tampered = second
            tampered.appAccountToken = nil
            #expect(try !Self.verifies(tampered, key: key, in: directory.url), "\(kind): the token is part of the payload")

            // An offer no arm names, and the arm's product without its offer's id: refused, with the server's code.
            for (product, offer) in [("symi_plus_monthly_499", "spring_90"), ("symi_plus_monthly", "winback_50")] {
                await #expect(throws: OfferSignatureError.self) { try await client.offerSignature(product: product, offer: offer) }
                do {
                    _ = try await client.offerSignature(product: product, offer: offer)
                } catch {
                    guard case .httpStatus(404, let code, _) = error else {
                        Issue.record("\(kind) \(product)/\(offer): \(error)")
                        continue
                    }
                    #expect(code == "offer_not_in_experiment", "\(kind)")
                }
            }
        }

        // No token at all, on a server whose reads need none: signing still needs a token (401), whatever the offer.
        let anonymous = FlagClient(configuration: TestClients.configuration(server.baseURL, directory.url.appendingPathComponent("anon")))
        do {
            _ = try await anonymous.offerSignature(product: "symi_plus_monthly_499", offer: "winback_50")
            Issue.record("signed for a request without a token")
        } catch {
            guard case .httpStatus(401, _, _) = error else {
                Issue.record("\(error)")
                return
            }
        }
    }

    @Test func aServerWithoutAKeySaysSo() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try await offPool { try SeededFlagServer(directory: directory) }
        defer { server.stop() }
        let reader = try server.token(name: "app", role: "reader")
        var configuration = TestClients.configuration(server.baseURL, directory.url.appendingPathComponent("app"))
        configuration.readToken = reader
        do {
            _ = try await FlagClient(configuration: configuration).offerSignature(product: "symi_plus_monthly_499", offer: "winback_50")
            Issue.record("signed without a key")
        } catch {
            guard case .httpStatus(503, let code, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(code == "offer_signing_unavailable")
        }
    }
}
