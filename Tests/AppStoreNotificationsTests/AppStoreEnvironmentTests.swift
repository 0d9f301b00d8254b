import AppStoreNotifications
import Testing

/// Apple's `environment` values, spelled as Apple sends them.
@Suite struct AppStoreEnvironmentTests {
    @Test func rawValuesAreApples() {
        #expect(AppStoreEnvironment.allCases.map(\.rawValue) == ["Production", "Sandbox", "Xcode", "LocalTesting"])
        #expect(AppStoreEnvironment(rawValue: "production") == nil)
    }
}
