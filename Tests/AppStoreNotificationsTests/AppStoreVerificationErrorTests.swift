import AppStoreNotifications
import Testing

/// The reason codes are what the receiver answers, logs and counts: they must not change.
@Suite struct AppStoreVerificationErrorTests {
    @Test func theCodesAreStable() {
        #expect(AppStoreVerificationError.Reason.allCases.map(\.rawValue) == [
            "invalid_json", "invalid_jws", "unsupported_algorithm", "invalid_signature", "invalid_chain",
            "certificate_not_valid_at_signed_date", "missing_marker", "wrong_bundle_id", "wrong_app_apple_id",
            "wrong_environment", "invalid_payload", "invalid_root_certificate",
        ])
    }

    @Test func theDescriptionIsCodeThenDetail() {
        let error = AppStoreVerificationError(.wrongBundleID, "bundleId \"x\"")
        #expect(error.description == #"wrong_bundle_id: bundleId "x""#)
        #expect(error == AppStoreVerificationError(.wrongBundleID, "bundleId \"x\""))
        #expect(error != AppStoreVerificationError(.wrongBundleID, "bundleId \"y\""))
    }
}
