@testable import AppStoreNotifications
import AppStoreTestSupport
import Testing

/// The libcrypto layer on its own: certificates, the chain and its dates, markers, ES256, HMAC-SHA256.
@Suite struct LibCryptoX509Tests {
    @Test func certificatesParseAndKnowWhatTheyAre() throws {
        let ca = try AppStoreTestCA()
        let root = try X509Certificate(der: ca.rootDER)
        let intermediate = try X509Certificate(der: ca.intermediateDER)
        let leaf = try X509Certificate(der: ca.leafDER)
        #expect(root.isCA && intermediate.isCA && !leaf.isCA)
        #expect(leaf.isIssued(by: intermediate) && intermediate.isIssued(by: root) && !leaf.isIssued(by: root))
        #expect(leaf.hasExtension(oid: "1.2.840.113635.100.6.11.1") && !leaf.hasExtension(oid: "1.2.840.113635.100.6.2.1"))
        #expect(intermediate.hasExtension(oid: "1.2.840.113635.100.6.2.1") && !root.hasExtension(oid: "1.2.840.113635.100.6.2.1"))
        #expect(!leaf.hasExtension(oid: "not an oid"))
        #expect(leaf.isSame(as: try X509Certificate(der: ca.leafDER)) && !leaf.isSame(as: root))
        #expect(throws: AppStoreVerificationError.self) { try X509Certificate(der: []) }
        #expect(throws: AppStoreVerificationError.self) { try X509Certificate(der: ca.leafDER + [0]) }
    }

    @Test func theChainIsVerifiedToAConfiguredRootAndItsDatesReturned() throws {
        var options = AppStoreTestCA.Options()
        options.intermediateValidity = .init(notBefore: 1_700_000_000, notAfter: 1_900_000_000)
        options.leafValidity = .init(notBefore: 1_750_000_000, notAfter: 1_950_000_000)
        let ca = try AppStoreTestCA(options)
        let store = try X509TrustStore(roots: [try X509Certificate(der: ca.rootDER)])
        let leaf = try X509Certificate(der: ca.leafDER), intermediate = try X509Certificate(der: ca.intermediateDER)
        guard case .valid(let notBefore, let notAfter) = store.verify(leaf: leaf, intermediate: intermediate) else {
            Issue.record("the chain does not verify")
            return
        }
        #expect(notBefore == 1_750_000_000 && notAfter == 1_900_000_000)
        let other = try X509TrustStore(roots: [try X509Certificate(der: try AppStoreTestCA().rootDER)])
        guard case .invalid = other.verify(leaf: leaf, intermediate: intermediate) else {
            Issue.record("verified against another root")
            return
        }
        guard case .invalid = store.verify(leaf: intermediate, intermediate: leaf) else {
            Issue.record("verified out of order")
            return
        }
    }

    @Test func es256VerifiesTheLeafsSignatureAndNothingElse() throws {
        let ca = try AppStoreTestCA()
        let jws = try CompactJWS(try AppStoreTestSigner(ca: ca).sign(["a": 1]))
        let leaf = try X509Certificate(der: ca.leafDER)
        #expect(leaf.verifiesES256(signature: jws.signature, of: jws.signingInput))
        var flipped = jws.signature
        flipped[0] ^= 0x80
        #expect(!leaf.verifiesES256(signature: flipped, of: jws.signingInput))
        #expect(!leaf.verifiesES256(signature: jws.signature, of: jws.signingInput + [0]))
        #expect(!leaf.verifiesES256(signature: Array(jws.signature.dropLast()), of: jws.signingInput))
        #expect(!leaf.verifiesES256(signature: [UInt8](repeating: 0, count: 64), of: jws.signingInput))
        let root = try X509Certificate(der: ca.rootDER)
        #expect(!root.verifiesES256(signature: jws.signature, of: jws.signingInput))
    }

    @Test func hmacSHA256MatchesRFC4231() {
        // RFC 4231 §4.3, test case 2.
        let digest = LibCrypto.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(digest.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    /// Apple's real chain passes the same checks (X509_STRICT on this machine's libcrypto, the markers, the order).
    @Test func applesRealChainVerifies() throws {
        let root = try X509Certificate(der: AppleChainFixture.root)
        let intermediate = try X509Certificate(der: AppleChainFixture.intermediate)
        let leaf = try X509Certificate(der: AppleChainFixture.leaf)
        #expect(!leaf.isCA && leaf.isIssued(by: intermediate))
        #expect(leaf.hasExtension(oid: SignedPayloadVerifier.leafMarker))
        #expect(intermediate.hasExtension(oid: SignedPayloadVerifier.intermediateMarker))
        let store = try X509TrustStore(roots: [root])
        guard case .valid(let notBefore, let notAfter) = store.verify(leaf: leaf, intermediate: intermediate) else {
            Issue.record("Apple's chain does not verify: \(store.verify(leaf: leaf, intermediate: intermediate))")
            return
        }
        #expect(notBefore <= AppleChainFixture.effectiveDate && AppleChainFixture.effectiveDate <= notAfter)
        // The leaf's dates bound the chain: 2021-08-25T02:50:34Z through 2023-09-24T02:50:33Z.
        #expect(notBefore == 1_629_859_834 && notAfter == 1_695_523_833)
        #expect(try AppStoreVerifierConfiguration.certificates(fromFile: AppleChainFixture.root) == [AppleChainFixture.root])
    }
}
