import AppStoreNotifications
import AppStoreTestSupport
import Foundation
import Testing

/// The App Store Server API token as Apple's "Generating JSON Web Tokens for API requests" asks for it: the header and
/// claims read back from the compact form, the signature checked by a verifier of the test key's own (PyJWT checks
/// it too, in FlagServerProcessTests' backfill test).
@Suite struct AppStoreAPITokenTests {
    let testKey: AppStoreTestAPIKey
    let key: AppStoreAPIKey

    init() throws {
        testKey = try AppStoreTestAPIKey()
        key = try AppStoreAPIKey(pem: Array(testKey.privateKeyPEM.utf8), keyID: "2X9R4HXF34")
    }

    /// The three parts of a compact JWS, decoded (RFC 7515 §7.1).
    static func parts(_ token: String) throws -> (header: [String: Any], claims: [String: Any], signature: [UInt8], input: [UInt8]) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        for part in parts { #expect(!part.contains("=") && !part.contains("+") && !part.contains("/"), "not base64url: \(part)") }
        let header = try #require(Base64URL.decode(Substring(parts[0])))
        let claims = try #require(Base64URL.decode(Substring(parts[1])))
        let signature = try #require(Base64URL.decode(Substring(parts[2])))
        return (try #require(try JSONSerialization.jsonObject(with: Data(header)) as? [String: Any]),
                try #require(try JSONSerialization.jsonObject(with: Data(claims)) as? [String: Any]),
                signature, Array((parts[0] + "." + parts[1]).utf8))
    }

    @Test func theHeaderAndClaimsAreApplesAndTheSignatureVerifies() throws {
        let token = try AppStoreAPIToken(keyID: "2X9R4HXF34", issuerID: "57246542-96fe-1a63-e053-0824d011072a",
                                         bundleID: "app.symi.journal", issuedAt: 1_796_000_000).signed(with: key)
        let (header, claims, signature, input) = try Self.parts(token)
        #expect(header as NSDictionary == ["alg": "ES256", "kid": "2X9R4HXF34", "typ": "JWT"] as NSDictionary)
        #expect(claims as NSDictionary == ["iss": "57246542-96fe-1a63-e053-0824d011072a", "iat": 1_796_000_000,
                                           "exp": 1_796_001_200, "aud": "appstoreconnect-v1", "bid": "app.symi.journal"] as NSDictionary)
        #expect(signature.count == 64)
        #expect(testKey.verifiesES256(signature: signature, of: input))
        // The verifier can say no: one flipped bit, another message, another key.
        var flipped = signature
        flipped[40] ^= 0x01
        #expect(!testKey.verifiesES256(signature: flipped, of: input))
        #expect(!testKey.verifiesES256(signature: signature, of: input + [0x20]))
        #expect(!(try AppStoreTestAPIKey()).verifiesES256(signature: signature, of: input))
    }

    @Test func eachSignatureIsFreshAndEachVerifies() throws {
        let token = try AppStoreAPIToken(keyID: "2X9R4HXF34", issuerID: "issuer", bundleID: "app.symi.journal", issuedAt: 1_796_000_000)
        let first = try Self.parts(token.signed(with: key)), second = try Self.parts(token.signed(with: key))
        // ECDSA signs with a random nonce: the same claims give another signature, both valid.
        #expect(first.signature != second.signature)
        #expect(first.input == second.input)
        #expect(testKey.verifiesES256(signature: first.signature, of: first.input))
        #expect(testKey.verifiesES256(signature: second.signature, of: second.input))
    }

    @Test func identifiersAreEscapedAsJSONStrings() throws {
        let token = try AppStoreAPIToken(keyID: "2X9R4HXF34", issuerID: "a\"b\\c/d", bundleID: "app.symi.journal", issuedAt: 0,
                                         lifetimeSeconds: 3600).signed(with: key)
        let claims = try Self.parts(token).claims
        #expect(claims["iss"] as? String == "a\"b\\c/d")
        #expect(claims["exp"] as? Int == 3600)
    }

    @Test func aLifetimeBeyondApplesHourOrAnEmptyIdentifierIsRefused() throws {
        for lifetime: Int64 in [0, -1, 3601] {
            #expect(throws: AppStoreAPIError.self) {
                try AppStoreAPIToken(keyID: "K", issuerID: "I", bundleID: "B", issuedAt: 0, lifetimeSeconds: lifetime)
            }
        }
        for (keyID, issuerID, bundleID) in [("", "I", "B"), ("K", "", "B"), ("K", "I", "")] {
            #expect(throws: AppStoreAPIError.self) { try AppStoreAPIToken(keyID: keyID, issuerID: issuerID, bundleID: bundleID, issuedAt: 0) }
        }
        // The header names the key that signs.
        let token = try AppStoreAPIToken(keyID: "OTHERKEY", issuerID: "I", bundleID: "B", issuedAt: 0)
        #expect(throws: AppStoreAPIError(.invalidClaims, "the header names key OTHERKEY, the key given is 2X9R4HXF34")) {
            try token.signed(with: key)
        }
    }
}
