/// The App Store environment a notification, transaction or renewal info comes from (Apple's `environment` values).
public enum AppStoreEnvironment: String, Sendable, CaseIterable {
    /// Real purchases.
    case production = "Production"
    /// Sandbox accounts, TestFlight and App Store Connect's test notification.
    case sandbox = "Sandbox"
    /// StoreKit Testing in Xcode (not signed by Apple; the verifier refuses it unless configured).
    case xcode = "Xcode"
    /// Local StoreKit testing (not signed by Apple).
    case localTesting = "LocalTesting"
}
