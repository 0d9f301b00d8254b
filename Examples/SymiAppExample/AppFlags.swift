import FlagClient
import Foundation
import SymiSchema

/// How the Symi app holds its flags: one `FlagClient` for the app's lifetime, given Symi's safe defaults, values read
/// synchronously (cache or safe defaults, never the network) as Symi's typed values (`SymiFlagValues`, SymiSchema), a
/// refresh at launch and whenever the app returns to the foreground.
///
/// Platform neutral, so this file compiles and runs on Linux in the `FLAGCLIENT_TRANSPORT=urlsession`
/// configuration too (`main.swift`); `SymiAppExampleApp.swift` is the SwiftUI side.
final class AppFlags: Sendable {
    /// The client; create it once, early in launch.
    let client: FlagClient

    /// `baseURL` is the flag server (https in release builds: App Transport Security refuses plain http);
    /// `directory` is where the cache and the install id live (Application Support, see ``flagDirectory()``).
    init(baseURL: URL, directory: URL, app: AppContext) {
        client = FlagClient(configuration: FlagClientConfiguration(
            environment: "production", baseURL: baseURL, cacheDirectory: directory, app: app,
            safeDefaults: SymiSafeDefaults.document))
    }

    /// `Application Support/flags`, created if needed and excluded from iCloud backup: the cache is re-fetched in a
    /// second, and a restored install id on another device would put two devices in one rollout bucket.
    /// Application Support rather than Caches: iOS may empty Caches, and a lost install id moves the install to
    /// another bucket.
    static func flagDirectory() throws -> URL {
        let support = try FileManager.default.url(for: .applicationSupportDirectory, in: .userDomainMask,
                                                  appropriateFor: nil, create: true)
        var directory = support.appendingPathComponent("flags", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        #if os(iOS) || os(macOS) || os(tvOS) || os(watchOS) || os(visionOS)
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        try directory.setResourceValues(values)
        #endif
        return directory
    }

    /// The start screen's decisions, read at once (no waiting): the intro card and whether PDF export is open.
    func startScreen(entitled: Bool) -> (showIntroCard: Bool, pdfExportAvailable: Bool) {
        let flags = SymiFlagValues(client.snapshot)  // one consistent set of values for the whole screen
        return (flags.showIntroFreeSubscriptionBanner && !entitled, flags.isAvailable("pdfExport", entitled: entitled))
    }

    /// Call at launch and when the app becomes active again. Never throws and never delays a value: at most one
    /// fetch per 30 s, backoff after failures, `Retry-After` honoured; new values arrive through `updates()`.
    @discardableResult
    func refresh() async -> RefreshOutcome {
        await client.refresh()
    }
}
