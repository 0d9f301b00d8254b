import Foundation
import SymiSchema
@testable import FlagClient
import TestSupport

/// Clients as the tests make them: a German App Store install, short timeouts, a small body limit, and Symi's safe
/// defaults (the fault tests check that no failure locks Symi's premium gate).
enum TestClients {
    /// A German user of the App Store build.
    static let germanApp = AppContext(appVersion: "2.4.0", osVersion: "17.4", platform: "ios", locale: "de_DE",
                                      country: "DE", channel: "appstore")

    /// Timeouts short enough for fault tests, long enough for a loaded CI machine; 64 KiB of body.
    static let options = TransportOptions(connectTimeout: .seconds(2), totalTimeout: .seconds(3),
                                          maxResponseBodyBytes: 64 << 10)

    /// A configuration for `baseURL` with its files in `directory`.
    static func configuration(_ baseURL: URL, _ directory: URL, environment: String = "production",
                              app: AppContext = germanApp, installId: String? = nil,
                              options: TransportOptions = options,
                              transport: TransportKind = .platformDefault) -> FlagClientConfiguration {
        FlagClientConfiguration(environment: environment, baseURL: baseURL, cacheDirectory: directory, app: app,
                                installId: installId, transport: transport, transportOptions: options,
                                safeDefaults: SymiSafeDefaults.document)
    }

    /// A client of `server` with its files in `directory`.
    static func make(_ server: DocumentServer, _ directory: TemporaryDirectory, app: AppContext = germanApp,
                     options: TransportOptions = options) -> FlagClient {
        FlagClient(configuration: configuration(server.baseURL, directory.url, app: app, options: options))
    }
}

extension FlagClient {
    /// Symi's typed values of the current snapshot.
    var symi: SymiFlagValues { SymiFlagValues(snapshot) }
}

extension FlagSnapshot {
    /// Symi's typed values of this snapshot.
    var symi: SymiFlagValues { SymiFlagValues(self) }
}

/// Polls `condition` every 10 ms until it holds or `seconds` pass; its last answer.
func eventually(_ seconds: Double = 5, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
