import Foundation
import Testing
@testable import FlagClient

@Suite struct FlagClientConfigurationTests {
    @Test(arguments: [("https://flags.symi.app", "https://flags.symi.app/v1/environments/production/document"),
                      ("https://flags.symi.app/", "https://flags.symi.app/v1/environments/production/document"),
                      ("https://cdn.symi.app/config/", "https://cdn.symi.app/config/v1/environments/production/document")])
    func documentURLBelowTheBaseURL(base: String, expected: String) throws {
        let configuration = FlagClientConfiguration(environment: "production", baseURL: try #require(URL(string: base)),
                                                    cacheDirectory: URL(fileURLWithPath: "/tmp/x"))
        #expect(configuration.documentURL.absoluteString == expected)
    }

    @Test func defaultsSuitTheApp() throws {
        let configuration = FlagClientConfiguration(environment: "staging", baseURL: try #require(URL(string: "https://x")),
                                                    cacheDirectory: URL(fileURLWithPath: "/tmp/x"))
        #expect(configuration.transportOptions == TransportOptions())
        #expect(configuration.transportOptions.totalTimeout <= .seconds(5))
        #expect(configuration.refreshPolicy == RefreshPolicy())
        #expect(configuration.installId == nil && configuration.readToken == nil)
    }
}
