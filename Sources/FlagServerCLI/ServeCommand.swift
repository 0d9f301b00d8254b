import AppStoreNotifications
import CommandLineKit
import FlagService
import FlagStore
import HTTPServer

/// `flagserver [options]`: serve the flag documents over HTTP. Every option has an environment variable fallback;
/// options win over variables. The database (`--database`) is the tool's global option, shared with the admin commands.
public struct ServeCommand: ParsableCommand {
    /// The tool's default command: it has no name of its own.
    public static let configuration = CommandConfiguration(
        name: "", abstract: "Serve versioned flag documents over HTTP.",
        options: [hostOption, portOption, flagsDirectoryOption, loopsOption, maxBodyBytesOption, maxBufferedBodyBytesOption, maxHeaderBytesOption, maxConnectionsOption,
                  logLevelOption, requireReadTokenSwitch, ofrepEnvironmentOption, ofrepRateLimitOption, ofrepBurstOption, consoleDirectoryOption,
                  authFailureLimitOption, trustedProxyOption, eventHeartbeatOption, maxStreamsOption, webhookRetryBaseOption,
                  webhookAllowNetworkOption, databaseTimeoutOption, appStoreRootCertificateOption, appStoreBundleIDOption,
                  appStoreAppAppleIDOption, appStoreEnvironmentsOption, appStoreRetentionDaysOption, appStoreOfferKeyOption,
                  appStoreOfferKeyIDOption])

    static let hostOption = Option<String>("host", valueName: "address", help: "listen address, default 127.0.0.1", environment: "FLAGSERVER_HOST")
    static let portOption = integer("port", 0...65535, help: "TCP port, 0 picks a free one, default 8080", environment: "FLAGSERVER_PORT")
    static let flagsDirectoryOption = Option<String>(
        "flags-dir", valueName: "dir", help: "NAME.json files published as version 1 of environment NAME on first start, default ./flags",
        environment: "FLAGSERVER_FLAGS_DIR")
    static let loopsOption = integer("loops", 1...256, help: "event-loop threads, default: online cores", environment: "FLAGSERVER_LOOPS")
    static let maxBodyBytesOption = integer("max-body-bytes", 1...(1 << 30), help: "largest request body (413), default 1048576",
                                            environment: "FLAGSERVER_MAX_BODY_BYTES")
    static let maxBufferedBodyBytesOption = integer(
        "max-buffered-body-bytes", 1...(1 << 40),
        help: "request-body bytes all connections together may hold while bodies arrive (503 too_many_bodies beyond; "
            + "never below --max-body-bytes), default 33554432", environment: "FLAGSERVER_MAX_BUFFERED_BODY_BYTES")
    static let maxHeaderBytesOption = integer("max-header-bytes", 1024...(1 << 20), help: "largest header section (431), default 16384",
                                              environment: "FLAGSERVER_MAX_HEADER_BYTES")
    static let maxConnectionsOption = integer("max-connections", 1...1_000_000, help: "open connections before 503, default 16384",
                                              environment: "FLAGSERVER_MAX_CONNECTIONS")
    static let logLevelOption = Option(
        "log-level", valueName: "level", help: "debug|info|warning|error|off, default info (debug also logs every request)",
        environment: "FLAGSERVER_LOG_LEVEL"
    ) { text throws(UsageError) in
        guard let level = ServiceLogger.Level(name: text) else {
            throw UsageError("--log-level must be debug, info, warning, error or off, got '\(text)'")
        }
        return level
    }
    static let requireReadTokenSwitch = Switch("require-read-token", help: "GETs need a reader token too", environment: "FLAGSERVER_REQUIRE_READ_TOKEN")
    static let ofrepEnvironmentOption = Option<String>(
        "ofrep-environment", valueName: "env", help: "environment served at /ofrep/v1, default production", environment: "FLAGSERVER_OFREP_ENVIRONMENT")
    static let ofrepRateLimitOption = rate("ofrep-rate-limit", help: "OFREP evaluations per second per client (429 beyond), default: no limit",
                                           environment: "FLAGSERVER_OFREP_RATE_LIMIT")
    static let ofrepBurstOption = rate("ofrep-burst", help: "OFREP requests a client may send at once, default 50", environment: "FLAGSERVER_OFREP_BURST")
    static let consoleDirectoryOption = Option(
        "console-dir", valueName: "dir",
        help: "the ops console's files served at /console, default: BIN/../share/flagserver/console, or console/ of the repository "
            + "the binary was built in (\"off\": none)",
        environment: "FLAGSERVER_CONSOLE_DIR"
    ) { text throws(UsageError) in
        guard !text.isEmpty else { throw UsageError("--console-dir must not be empty (\"off\" serves no console)") }
        return text
    }
    static let authFailureLimitOption = integer(
        "auth-failure-limit", 0...1_000_000, help: "failed authentications per client per minute before 429, 0 turns it off, default 10",
        environment: "FLAGSERVER_AUTH_FAILURE_LIMIT")
    static let trustedProxyOption = Option<String>(
        "trusted-proxy", valueName: "address",
        help: "a proxy (numeric IP, repeatable or comma-separated) whose X-Forwarded-For/X-Real-IP name the client, default none",
        repeatable: true, environment: "FLAGSERVER_TRUSTED_PROXIES")
    static let eventHeartbeatOption = integer("event-heartbeat", 1...3600, help: "seconds between heartbeat comments on event streams, default 25",
                                              environment: "FLAGSERVER_EVENT_HEARTBEAT")
    static let maxStreamsOption = integer("max-streams", 0...1_000_000, help: "open event streams before 503, default 12288",
                                          environment: "FLAGSERVER_MAX_STREAMS")
    static let webhookRetryBaseOption = integer(
        "webhook-retry-base-ms", 1...3_600_000, help: "wait before a failed webhook delivery's first retry, doubling for each later one, "
            + "default 1000", environment: "FLAGSERVER_WEBHOOK_RETRY_BASE_MS")
    static let databaseTimeoutOption = Option(
        "database-timeout", valueName: "seconds",
        help: "PostgreSQL: how long a call waits for the database's answer (a write also waits its lock wait) before "
            + "the connection is dropped and the request answered 503, default 5", environment: "FLAGSERVER_DATABASE_TIMEOUT"
    ) { text throws(UsageError) in
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0.1, seconds <= 3600 else {
            throw UsageError("--database-timeout must be a number of seconds between 0.1 and 3600, got '\(text)'")
        }
        return Duration.milliseconds(Int64((seconds * 1000).rounded()))
    }

    static let webhookAllowNetworkOption = Option(
        "webhook-allow-network", valueName: "cidr",
        help: "a network inside (loopback, private, link-local, ...) webhooks may be delivered to on purpose, e.g. 10.20.0.0/16 "
            + "(repeatable; the variable takes a comma- or space-separated list), default none",
        repeatable: true, environment: "FLAGSERVER_WEBHOOK_ALLOW_NETWORK"
    ) { text throws(UsageError) -> [IPNetwork] in
        let items = text.split { $0 == "," || $0 == " " || $0 == "\t" || $0 == "\n" }.map(String.init)
        guard !items.isEmpty else { throw UsageError("--webhook-allow-network needs a network in CIDR notation (10.20.0.0/16), got '\(text)'") }
        do {
            return try items.map { item throws(IPNetwork.ParseError) in try IPNetwork(item) }
        } catch {
            throw UsageError("--webhook-allow-network: \(error)")
        }
    }

    // The verification options are `appstore backfill`'s too (`AppStoreVerificationOptions`): one environment file
    // configures both. Optional here: without a root the receiver is off.
    static let appStoreRootCertificateOption = AppStoreVerificationOptions.rootCertificateOption(required: false)
    static let appStoreBundleIDOption = AppStoreVerificationOptions.bundleIDOption(required: false)
    static let appStoreAppAppleIDOption = AppStoreVerificationOptions.appAppleIDOption
    static let appStoreEnvironmentsOption = Option(
        "appstore-environments", valueName: "list",
        help: "the environments whose notifications are accepted, comma-separated: Production, Sandbox, Xcode, LocalTesting; "
            + "default Production", environment: "FLAGSERVER_APPSTORE_ENVIRONMENTS"
    ) { text throws(UsageError) -> Set<AppStoreEnvironment> in
        let names = text.split(separator: ",").map { String(HTTPHeaders.trimmed($0)) }.filter { !$0.isEmpty }
        var environments = Set<AppStoreEnvironment>()
        for name in names {
            guard let environment = AppStoreEnvironment(rawValue: name) else {
                throw UsageError("--appstore-environments takes Production, Sandbox, Xcode or LocalTesting, comma-separated, got '\(name)'")
            }
            environments.insert(environment)
        }
        guard !environments.isEmpty else { throw UsageError("--appstore-environments needs at least one environment (Production, Sandbox)") }
        return environments
    }
    static let appStoreRetentionDaysOption = integer(
        "appstore-retention-days", 1...36_500,
        help: "App Store notifications signed longer ago than this are deleted (hourly), default \(FlagService.AppStoreOptions.defaultRetentionDays)",
        environment: "FLAGSERVER_APPSTORE_RETENTION_DAYS")

    static let appStoreOfferKeyOption = Option(
        "appstore-offer-key", valueName: "file",
        help: "the In-App Purchase key's .p8 file (PEM, P-256) that signs promotional offers the experiment arms name "
            + "(POST /v1/environments/{env}/offer-signatures); needs --appstore-offer-key-id and --appstore-bundle-id, default: no signing",
        environment: "FLAGSERVER_APPSTORE_OFFER_KEY"
    ) { text throws(UsageError) in
        guard !text.isEmpty else { throw UsageError("--appstore-offer-key must not be empty") }
        return text
    }
    static let appStoreOfferKeyIDOption = Option(
        "appstore-offer-key-id", valueName: "id", help: "the ID App Store Connect shows for the --appstore-offer-key key",
        environment: "FLAGSERVER_APPSTORE_OFFER_KEY_ID"
    ) { text throws(UsageError) in
        guard !text.isEmpty else { throw UsageError("--appstore-offer-key-id must not be empty") }
        return text
    }

    /// Listen address.
    public var host = "127.0.0.1"
    /// TCP port; 0 picks a free one.
    public var port = 8080
    /// Seed documents for the first start.
    public var flagsDirectory = "./flags"
    /// Event-loop threads; nil: one per online core.
    public var loops: Int?
    /// Largest request body.
    public var maxBodyBytes = 1024 * 1024
    /// Request-body bytes all connections together may hold while bodies arrive (at least `maxBodyBytes`).
    public var maxBufferedBodyBytes = HTTPServerConfiguration.Limits().maxBufferedBodyBytes
    /// Open connections before 503.
    public var maxConnections = 16 * 1024
    /// Largest header section.
    public var maxHeaderBytes = 16 * 1024
    /// Least severe level logged.
    public var logLevel = ServiceLogger.Level.info
    /// Whether GETs need a reader token.
    public var requireReadToken = false
    /// The environment OFREP serves.
    public var ofrepEnvironment = "production"
    /// OFREP evaluations per second per client; nil: no limit.
    public var ofrepRateLimit: Double?
    /// OFREP requests a client may send at once.
    public var ofrepBurst = 50.0
    /// nil: look for the console beside the binary and in its repository (`ConsoleAssets.defaultCandidates`).
    public var consoleDirectory: String?
    /// Proxies whose forwarding headers name the client.
    public var trustedProxies = HTTPTrustedProxies.none
    /// Failed authentications per client per minute before 429.
    public var authFailureLimit = 10
    /// Seconds between heartbeat comments on event streams.
    public var eventHeartbeatSeconds = 25
    /// Open event streams before 503.
    public var maxStreams = HTTPStreamLimits().maxStreams
    /// Milliseconds before a failed webhook delivery's first retry (each later one doubles).
    public var webhookRetryBaseMilliseconds = 1000
    /// Networks inside that webhooks may reach (`WebhookDestinationPolicy.allowedNetworks`); none by default.
    public var webhookAllowedNetworks: [IPNetwork] = []
    /// PostgreSQL: how long a call waits for the database's answer before it fails as unavailable (503).
    public var databaseTimeout = FlagStore.defaultDatabaseTimeout

    /// Root certificate files App Store notifications must chain to; none: the receiver is off.
    public var appStoreRootCertificates: [String] = []
    /// The app's bundle ID (required with a root).
    public var appStoreBundleID: String?
    /// The app's Apple ID (required with a root when Production is accepted).
    public var appStoreAppAppleID: Int64?
    /// The environments accepted.
    public var appStoreEnvironments: Set<AppStoreEnvironment> = [.production]
    /// Days App Store notifications are kept.
    public var appStoreRetentionDays = FlagService.AppStoreOptions.defaultRetentionDays
    /// The In-App Purchase key file that signs promotional offers; nil: no signing (the route answers 503).
    public var appStoreOfferKey: String?
    /// That key's ID (required with it).
    public var appStoreOfferKeyID: String?

    /// The defaults.
    public init() {}

    /// From the parsed command line (and the variables it fell back to).
    public init(parsed: ParsedArguments) throws(UsageError) {
        let proxies = try parsed.values(Self.trustedProxyOption)
        if !proxies.isEmpty {
            let addresses = proxies.flatMap { $0.split(separator: ",") }.map { String(HTTPHeaders.trimmed($0)) }.filter { !$0.isEmpty }
            guard let trusted = HTTPTrustedProxies(addresses) else {
                throw UsageError("--trusted-proxy takes numeric IP addresses, got '\(proxies.joined(separator: ","))'")
            }
            trustedProxies = trusted
        }
        host = try parsed.value(Self.hostOption) ?? host
        port = try parsed.value(Self.portOption) ?? port
        flagsDirectory = try parsed.value(Self.flagsDirectoryOption) ?? flagsDirectory
        consoleDirectory = try parsed.value(Self.consoleDirectoryOption)
        loops = try parsed.value(Self.loopsOption)
        maxBodyBytes = try parsed.value(Self.maxBodyBytesOption) ?? maxBodyBytes
        maxBufferedBodyBytes = try parsed.value(Self.maxBufferedBodyBytesOption) ?? maxBufferedBodyBytes
        maxHeaderBytes = try parsed.value(Self.maxHeaderBytesOption) ?? maxHeaderBytes
        maxConnections = try parsed.value(Self.maxConnectionsOption) ?? maxConnections
        authFailureLimit = try parsed.value(Self.authFailureLimitOption) ?? authFailureLimit
        eventHeartbeatSeconds = try parsed.value(Self.eventHeartbeatOption) ?? eventHeartbeatSeconds
        maxStreams = try parsed.value(Self.maxStreamsOption) ?? maxStreams
        webhookRetryBaseMilliseconds = try parsed.value(Self.webhookRetryBaseOption) ?? webhookRetryBaseMilliseconds
        webhookAllowedNetworks = try parsed.values(Self.webhookAllowNetworkOption).flatMap { $0 }
        databaseTimeout = try parsed.value(Self.databaseTimeoutOption) ?? databaseTimeout
        ofrepEnvironment = try parsed.value(Self.ofrepEnvironmentOption) ?? ofrepEnvironment
        ofrepRateLimit = try parsed.value(Self.ofrepRateLimitOption)
        ofrepBurst = try parsed.value(Self.ofrepBurstOption) ?? ofrepBurst
        logLevel = try parsed.value(Self.logLevelOption) ?? logLevel
        requireReadToken = parsed.isSet(Self.requireReadTokenSwitch)
        try readAppStoreOptions(parsed)
    }

    /// An integer option with flagserver's message for a value out of `range`.
    static func integer(_ name: String, _ range: ClosedRange<Int>, help: String, environment: String) -> Option<Int> {
        Option(name, valueName: "n", help: help, environment: environment) { text throws(UsageError) in
            guard let value = Int(text), range.contains(value) else {
                throw UsageError("--\(name) must be an integer between \(range.lowerBound) and \(range.upperBound), got '\(text)'")
            }
            return value
        }
    }

    /// A rate option: a number from 1 to 1,000,000.
    static func rate(_ name: String, help: String, environment: String) -> Option<Double> {
        Option(name, valueName: "n", help: help, environment: environment) { text throws(UsageError) in
            guard let value = Double(text), value.isFinite, value >= 1, value <= 1_000_000 else {
                throw UsageError("--\(name) must be a number between 1 and 1000000, got '\(text)'")
            }
            return value
        }
    }

    /// The HTTP server configuration these options describe.
    func serverConfiguration(logger: ServiceLogger) -> HTTPServerConfiguration {
        var limits = HTTPServerConfiguration.Limits()
        limits.maxBodyBytes = maxBodyBytes
        limits.maxBufferedBodyBytes = maxBufferedBodyBytes
        limits.maxConnections = maxConnections
        limits.maxHeaderBytes = maxHeaderBytes
        let accessLog: HTTPAccessLog = logger.isEnabled(.debug)
            ? .custom { entry in
                logger.log(.debug, "request", ["method": entry.method.rawValue, "target": entry.target, "status": "\(entry.status)",
                                               "bytes": "\(entry.bodyBytes)", "us": "\(entry.microseconds)", "peer": "\(entry.peer)"])
            }
            : .off
        var configuration = HTTPServerConfiguration(host: host, port: port, eventLoops: loops, limits: limits, accessLog: accessLog)
        configuration.streams.heartbeatInterval = .seconds(eventHeartbeatSeconds)
        configuration.streams.maxStreams = maxStreams
        return configuration
    }
}
