import AppStoreNotifications
import ClientHTTP
import CommandLineKit
import FlagKit
import FlagStore
import Foundation

/// `flagserver appstore backfill`: App Store Server Notifications the receiver missed, read from Apple's history.
public enum AppStoreCommand {
    /// The `appstore` word and its commands.
    static var group: CommandGroup<FlagServerContext> {
        CommandGroup(name: "appstore", abstract: "App Store Server Notifications kept by the receiver (docs/appstore.md).",
                     subcommands: [.command(Backfill.self)])
    }

    /// `flagserver appstore backfill --since DATE [--until DATE] --appstore-key-file P8 ...`.
    public struct Backfill: ParsableCommand {
        /// Name, abstract and options.
        public static let configuration = CommandConfiguration(
            name: "backfill", abstract: "Store the notifications Apple sent in a span that the receiver did not store.",
            discussion: """
                After an outage longer than Apple's retries (about three days), reads the App Store Server API's Get \
                Notification History for [--since, --until) with the team's In-App Purchase key, verifies every \
                notification as the receiver does (the same --appstore-root-certificate, --appstore-bundle-id and \
                --appstore-app-apple-id), and stores those not stored yet; running it again stores nothing twice. Apple \
                keeps 180 days of history in Production, 30 in Sandbox (where it does not retry at all). Prints "fetched N, stored M new, K already stored, R refused (reasons)"; \
                each refused notification is named on standard error and not stored. Exits 1 when the history could \
                not be read to the end (what was stored until then stays stored). Dates are YYYY-MM-DD (UTC) or RFC 3339.
                """,
            options: [sinceOption, untilOption, keyFileOption, keyIDOption, issuerIDOption, environmentOption, apiURLOption,
                      rootCertificateOption, bundleIDOption, AppStoreVerificationOptions.appAppleIDOption])

        static let sinceOption = Option("since", valueName: "date", help: "the start of the span, at most 180 days back (Sandbox: 30)",
                                        required: true) { text throws(UsageError) in try parseDate(text, option: "since") }
        static let untilOption = Option("until", valueName: "date", help: "the end of the span (exclusive), default now") {
            text throws(UsageError) in try parseDate(text, option: "until")
        }
        static let keyFileOption = Option<String>(
            "appstore-key-file", valueName: "path", help: "the In-App Purchase key's .p8 file (PEM, P-256)", required: true,
            environment: "FLAGSERVER_APPSTORE_KEY_FILE")
        static let keyIDOption = Option<String>("appstore-key-id", valueName: "id", help: "the In-App Purchase key's ID",
                                                required: true, environment: "FLAGSERVER_APPSTORE_KEY_ID")
        static let issuerIDOption = Option<String>(
            "appstore-issuer-id", valueName: "id", help: "the issuer ID App Store Connect shows above the keys", required: true,
            environment: "FLAGSERVER_APPSTORE_ISSUER_ID")
        static let environmentOption = Option(
            "appstore-environment", valueName: "Production|Sandbox", help: "whose history to read", required: true,
            environment: "FLAGSERVER_APPSTORE_ENVIRONMENT"
        ) { text throws(UsageError) in
            guard let environment = AppStoreEnvironment(rawValue: text), [.production, .sandbox].contains(environment) else {
                throw UsageError("--appstore-environment must be Production or Sandbox, got '\(text)'")
            }
            return environment
        }
        static let apiURLOption = Option(
            "appstore-api-url", valueName: "url",
            help: "the App Store Server API's base URL, default Apple's for the environment (\(NotificationHistoryClient.productionURL), "
                + "\(NotificationHistoryClient.sandboxURL))", environment: "FLAGSERVER_APPSTORE_API_URL"
        ) { text throws(UsageError) in
            guard NotificationHistoryClient.url(text, paginationToken: nil) != nil else {
                throw UsageError("--appstore-api-url must be an absolute http or https URL, got '\(text)'")
            }
            return text
        }
        static let rootCertificateOption = AppStoreVerificationOptions.rootCertificateOption(required: true)
        static let bundleIDOption = AppStoreVerificationOptions.bundleIDOption(required: true)

        /// The start of the span, milliseconds since 1970.
        public let since: Int64
        /// The end of the span (exclusive); nil: now.
        public let until: Int64?
        /// The In-App Purchase key's `.p8` file.
        public let keyFile: String
        /// The key's ID (the token's `kid`).
        public let keyID: String
        /// The issuer ID (the token's `iss`).
        public let issuerID: String
        /// Whose history: Production or Sandbox.
        public let environment: AppStoreEnvironment
        /// nil: Apple's URL for the environment.
        public let apiURL: String?
        /// The root certificate files notifications must chain to (the receiver's).
        public let rootCertificates: [String]
        /// The app's bundle ID (the token's `bid`, and what notifications must name).
        public let bundleID: String
        /// The app's Apple ID; required for Production.
        public let appAppleID: Int64?

        /// From the parsed command line (and the variables it fell back to).
        public init(parsed: ParsedArguments) throws(UsageError) {
            since = try parsed.required(Self.sinceOption)
            until = try parsed.value(Self.untilOption)
            if let until, until <= since { throw parsed.usageError("--until must be after --since") }
            keyFile = try parsed.required(Self.keyFileOption)
            keyID = try parsed.required(Self.keyIDOption)
            issuerID = try parsed.required(Self.issuerIDOption)
            environment = try parsed.required(Self.environmentOption)
            apiURL = try parsed.value(Self.apiURLOption)
            rootCertificates = try AppStoreVerificationOptions.rootCertificatePaths(parsed, Self.rootCertificateOption)
            bundleID = try parsed.required(Self.bundleIDOption)
            appAppleID = try parsed.value(AppStoreVerificationOptions.appAppleIDOption)
            if environment == .production && appAppleID == nil {
                throw parsed.usageError("--appstore-app-apple-id (FLAGSERVER_APPSTORE_APP_APPLE_ID) is required for Production: "
                    + "Production notifications are verified against the app's Apple ID, as the receiver does")
            }
        }

        /// `YYYY-MM-DD` (midnight UTC) or an RFC 3339 date-time, as milliseconds since 1970.
        static func parseDate(_ text: String, option: String) throws(UsageError) -> Int64 {
            let dateTime = text.count == 10 ? text + "T00:00:00Z" : text
            do {
                return try RFC3339.milliseconds(parsing: dateTime)
            } catch {
                throw UsageError("--\(option) must be a date (2026-12-01, UTC) or an RFC 3339 date-time (2026-12-01T06:00:00Z), got '\(text)'")
            }
        }

        /// Reads, verifies, stores, prints the summary; 1 with one error line when the key, the store or Apple's API
        /// fails (after the summary of what was stored until then), 64 when --since is beyond Apple's history (180 days
        /// in Production, 30 in Sandbox) or a root certificate file cannot be used (as for serve).
        public func run(_ context: FlagServerContext) -> Int32 {
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let days = NotificationHistoryRequest.retentionDays(environment)
            let earliest = now - days * 86_400_000
            guard since >= earliest else {
                context.stderr.write("flagserver: error: --since \(RFC3339.string(milliseconds: since)) is more than \(days) days ago; "
                    + "Apple keeps \(environment.rawValue)'s notification history for \(days) days (the earliest start now: "
                    + "\(RFC3339.string(milliseconds: earliest)))\n")
                return UsageError.exitStatus
            }
            let end = until ?? now
            guard end > since else { return context.fail("--since \(RFC3339.string(milliseconds: since)) is not in the past") }
            // The root certificates are read as serve reads them: a wrong file is a usage error (64).
            let verifier: SignedPayloadVerifier
            do {
                verifier = try AppStoreVerificationOptions.verifier(rootPaths: rootCertificates, bundleID: bundleID,
                                                                    appAppleID: appAppleID, environments: [environment])
            } catch {
                context.stderr.write("flagserver: error: \(error.message)\nSee 'flagserver appstore backfill --help'.\n")
                return UsageError.exitStatus
            }
            let key: AppStoreAPIKey
            do {
                let pem = [UInt8](try Data(contentsOf: URL(fileURLWithPath: keyFile)))
                key = try AppStoreAPIKey(pem: pem, keyID: keyID)
            } catch let error as AppStoreAPIError {
                return context.fail("the key \(keyFile) cannot sign: \(error)")
            } catch {
                return context.fail("cannot read the key \(keyFile): \(error.localizedDescription)")
            }
            let store: FlagStore
            do {
                store = try FlagStore.open(location: context.database)
            } catch {
                return context.fail("\(error)")
            }
            defer { store.close() }
            let base = apiURL ?? (environment == .production ? NotificationHistoryClient.productionURL : NotificationHistoryClient.sandboxURL)
            let backfill = AppStoreBackfill(
                client: NotificationHistoryClient(baseURL: base, key: key, issuerID: issuerID, bundleID: bundleID),
                verifier: verifier, store: store)
            let start = since
            let (report, error) = BlockingExchange.run { await backfill.run(since: start, until: end) }
            for line in report.refusals { context.stderr.write("flagserver: \(line)\n") }
            // After a failure, the summary says what was stored until then (nothing to say before the first page).
            if error == nil || report.pages > 0 { context.stdout.write(report.summary + "\n") }
            if let error { return context.fail("\(error)") }
            return 0
        }
    }
}
