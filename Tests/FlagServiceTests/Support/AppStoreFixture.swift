import AppStoreNotifications
import AppStoreTestSupport
@testable import FlagService
import TestSupport

/// A throw-away App Store chain and a service configured to trust it: the bundle and app id of
/// `AppStoreTestNotification`, Production only (so a Sandbox notification is the wrong environment). A second chain
/// whose leaf lacks Apple's marker is trusted too, so its notifications fail on the marker, not on the chain.
struct AppStoreFixture {
    let ca: AppStoreTestCA
    let signer: AppStoreTestSigner
    let withoutMarker: AppStoreTestSigner
    let options: FlagService.Options

    init(retentionDays: Int = FlagService.AppStoreOptions.defaultRetentionDays) throws {
        ca = try AppStoreTestCA()
        signer = AppStoreTestSigner(ca: ca)
        var noMarker = AppStoreTestCA.Options()
        noMarker.leafMarker = false
        let other = try AppStoreTestCA(noMarker)
        withoutMarker = AppStoreTestSigner(ca: other)
        let verifier = try SignedPayloadVerifier(configuration: AppStoreVerifierConfiguration(
            rootCertificates: [ca.rootDER, other.rootDER], bundleID: "app.symi.journal", appAppleID: 6_450_000_001,
            environments: [.production]))
        var options = TestServer.options
        options.appStore = FlagService.AppStoreOptions(verifier: verifier, retentionDays: retentionDays)
        self.options = options
    }

    /// `notification`'s POST body, signed by the trusted chain.
    func body(_ notification: AppStoreTestNotification, signing: AppStoreTestNotification.Signing = .init()) throws -> [UInt8] {
        try notification.body(signer, signing: signing)
    }
}

extension TestServer {
    /// Posts `body` to the receiver as Apple does (JSON, no token).
    func postNotification(_ body: [UInt8]) async throws -> RawHTTPResponse {
        try await RawHTTP.request(port: port, method: "POST", path: "/v1/appstore/notifications",
                                  headers: [("Content-Type", "application/json")], body: body)
    }
}
