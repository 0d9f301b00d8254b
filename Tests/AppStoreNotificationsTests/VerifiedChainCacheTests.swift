@testable import AppStoreNotifications
import AppStoreTestSupport
import Testing

/// A chain verified once is remembered, but every payload is still checked: its signature, its date.
@Suite struct VerifiedChainCacheTests {
    @Test func aRememberedChainStillChecksEachPayloadsDateAndSignature() throws {
        var options = AppStoreTestCA.Options()
        options.leafValidity = .init(notBefore: 1_793_491_200, notAfter: 1_796_083_200)
        let ca = try AppStoreTestCA(options)
        let signer = AppStoreTestSigner(ca: ca)
        let verifier = try SignedPayloadVerifier(configuration: AppStoreVerifierConfiguration(
            rootCertificates: [ca.rootDER], bundleID: "app.symi.journal", appAppleID: 6_450_000_001, environments: [.production]))
        var notification = AppStoreTestNotification()
        notification.signedDate = 1_795_000_000_000
        _ = try verifier.verifyNotificationBody(try notification.body(signer))
        notification.signedDate = 1_797_000_000_000
        let late = #expect(throws: AppStoreVerificationError.self) { try verifier.verifyNotificationBody(try notification.body(signer)) }
        #expect(late?.reason == .certificateNotValidAtSignedDate)
        notification.signedDate = 1_795_000_000_000
        var signing = AppStoreTestNotification.Signing()
        signing.payload = .flippedSignatureByte
        let flipped = #expect(throws: AppStoreVerificationError.self) {
            try verifier.verifyNotificationBody(try notification.body(signer, signing: signing))
        }
        #expect(flipped?.reason == .invalidSignature)
        _ = try verifier.verifyNotificationBody(try notification.body(signer))
    }

    @Test func theCacheStaysSmall() throws {
        let cache = VerifiedChainCache()
        let leaf = try X509Certificate(der: try AppStoreTestCA().leafDER)
        for index in 0..<(VerifiedChainCache.capacity * 3) {
            cache.insert(.init(leaf: leaf, notBefore: 0, notAfter: 1), for: "chain \(index)")
            #expect(cache.count <= VerifiedChainCache.capacity)
        }
        #expect(cache.chain(for: "chain \(VerifiedChainCache.capacity * 3 - 1)") != nil)
        #expect(cache.chain(for: "never inserted") == nil)
    }

    /// One verifier (its trust store, its cache, the certificates in it) serves every thread of the server at once.
    @Test func manyTasksShareOneVerifier() async throws {
        let first = try AppStoreTestCA(), second = try AppStoreTestCA()
        let signers = [AppStoreTestSigner(ca: first), AppStoreTestSigner(ca: second)]
        let verifier = try SignedPayloadVerifier(configuration: AppStoreVerifierConfiguration(
            rootCertificates: [first.rootDER, second.rootDER], bundleID: "app.symi.journal", appAppleID: 6_450_000_001,
            environments: [.production]))
        var bodies: [[UInt8]] = []
        for index in 0..<200 {
            var signing = AppStoreTestNotification.Signing()
            signing.payload = index % 10 == 0 ? .flippedSignatureByte : .none
            bodies.append(try AppStoreTestNotification().body(signers[index % 2], signing: signing))
        }
        let accepted = await withTaskGroup(of: Bool.self) { group in
            for body in bodies {
                group.addTask { (try? verifier.verifyNotificationBody(body)) != nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(accepted == 180)
    }
}
