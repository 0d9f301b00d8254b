import FlagService
import Foundation
import HTTPServer

/// `flagserver`'s configuration: command-line options, each with an environment variable fallback.
struct ServerOptions: Sendable, Equatable {
    var host = "127.0.0.1"
    var port = 8080
    var database = "./data/flags.sqlite"
    var flagsDirectory = "./flags"
    var loops: Int?
    var maxBodyBytes = 1024 * 1024
    var maxConnections = 16 * 1024
    var maxHeaderBytes = 16 * 1024
    var logLevel = ServiceLogger.Level.info
    var requireReadToken = false
    var ofrepEnvironment = "production"
    var ofrepRateLimit: Double?
    var ofrepBurst = 50.0
    /// nil: look for the console beside the binary and in its repository (`ConsoleAssets.defaultCandidates`).
    var consoleDirectory: String?
    var trustedProxies = HTTPTrustedProxies.none
    var authFailureLimit = 10
    var eventHeartbeatSeconds = 25
    var maxStreams = HTTPStreamLimits().maxStreams
    var showHelp = false

    /// A refused option: which one and why.
    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static let usage = """
        usage: flagserver [options]
               flagserver [--database PATH] token create --name NAME --role reader|writer|admin
               flagserver [--database PATH] token list [--all] | token revoke --name NAME
               flagserver [--database PATH] backup --to FILE | check

        Serves versioned flag documents from a SQLite file over HTTP (see docs/api.md).

        options (environment variable in brackets):
          --host ADDRESS          listen address, default 127.0.0.1            [FLAGSERVER_HOST]
          --port N                TCP port, 0 picks a free one, default 8080   [FLAGSERVER_PORT]
          --database PATH         SQLite file, default ./data/flags.sqlite     [FLAGSERVER_DATABASE]
          --flags-dir DIR         NAME.json files published as version 1 of environment NAME
                                  on first start, default ./flags              [FLAGSERVER_FLAGS_DIR]
          --loops N               event-loop threads, default: online cores    [FLAGSERVER_LOOPS]
          --max-body-bytes N      largest request body (413), default 1048576  [FLAGSERVER_MAX_BODY_BYTES]
          --max-header-bytes N    largest header section (431), default 16384  [FLAGSERVER_MAX_HEADER_BYTES]
          --max-connections N     open connections before 503, default 16384  [FLAGSERVER_MAX_CONNECTIONS]
          --log-level LEVEL       debug|info|warning|error|off, default info    [FLAGSERVER_LOG_LEVEL]
                                  (debug also logs every request)
          --require-read-token    GETs need a reader token too                 [FLAGSERVER_REQUIRE_READ_TOKEN=1]
          --ofrep-environment ENV environment served at /ofrep/v1, default production [FLAGSERVER_OFREP_ENVIRONMENT]
          --ofrep-rate-limit N    OFREP evaluations per second per client (429 beyond),
                                  default: no limit                            [FLAGSERVER_OFREP_RATE_LIMIT]
          --ofrep-burst N         OFREP requests a client may send at once, default 50 [FLAGSERVER_OFREP_BURST]
          --console-dir DIR       the ops console's files served at /console, default:
                                  BIN/../share/flagserver/console, or console/ of the
                                  repository the binary was built in ("off": none) [FLAGSERVER_CONSOLE_DIR]
          --auth-failure-limit N  failed authentications per client per minute before 429,
                                  0 turns it off, default 10                   [FLAGSERVER_AUTH_FAILURE_LIMIT]
          --trusted-proxy ADDRESS a proxy (numeric IP, repeatable or comma-separated) whose X-Forwarded-For/
                                  X-Real-IP name the client, default none      [FLAGSERVER_TRUSTED_PROXIES]
          --event-heartbeat N     seconds between heartbeat comments on event streams, default 25
                                                                               [FLAGSERVER_EVENT_HEARTBEAT]
          --max-streams N         open event streams before 503, default 12288 [FLAGSERVER_MAX_STREAMS]
          --help                  this text

        Prints "listening on http://HOST:PORT" on standard output when ready. SIGTERM or SIGINT stop it gracefully.

        """

    /// Parses `arguments` (without the program name) over `environment`; options win over variables.
    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> ServerOptions {
        var options = ServerOptions()
        var values: [String: String] = [:]
        let names: [(option: String, variable: String)] = [
            ("--host", "FLAGSERVER_HOST"), ("--port", "FLAGSERVER_PORT"), ("--database", "FLAGSERVER_DATABASE"),
            ("--flags-dir", "FLAGSERVER_FLAGS_DIR"), ("--loops", "FLAGSERVER_LOOPS"),
            ("--max-body-bytes", "FLAGSERVER_MAX_BODY_BYTES"), ("--max-header-bytes", "FLAGSERVER_MAX_HEADER_BYTES"),
            ("--max-connections", "FLAGSERVER_MAX_CONNECTIONS"), ("--log-level", "FLAGSERVER_LOG_LEVEL"),
            ("--ofrep-environment", "FLAGSERVER_OFREP_ENVIRONMENT"), ("--ofrep-rate-limit", "FLAGSERVER_OFREP_RATE_LIMIT"),
            ("--ofrep-burst", "FLAGSERVER_OFREP_BURST"), ("--console-dir", "FLAGSERVER_CONSOLE_DIR"),
            ("--trusted-proxy", "FLAGSERVER_TRUSTED_PROXIES"),
            ("--auth-failure-limit", "FLAGSERVER_AUTH_FAILURE_LIMIT"),
            ("--event-heartbeat", "FLAGSERVER_EVENT_HEARTBEAT"), ("--max-streams", "FLAGSERVER_MAX_STREAMS"),
        ]
        for (option, variable) in names {
            if let value = environment[variable] { values[option] = value }
        }
        // Repeatable: the options add up (and replace the variable's list).
        var proxies: [String]? = environment["FLAGSERVER_TRUSTED_PROXIES"].map { [$0] }
        var proxiesFromOptions = false
        if let flag = environment["FLAGSERVER_REQUIRE_READ_TOKEN"] {
            options.requireReadToken = ["1", "true", "yes"].contains(flag.lowercased())
        }
        var words = arguments[...]
        while let word = words.popFirst() {
            if word == "--help" || word == "-h" {
                options.showHelp = true
                continue
            }
            if word == "--require-read-token" {
                options.requireReadToken = true
                continue
            }
            var option = word
            var inline: String?
            if let eq = word.firstIndex(of: "=") {
                option = String(word[..<eq])
                inline = String(word[word.index(after: eq)...])
            }
            guard names.contains(where: { $0.option == option }) else {
                throw UsageError(description: "unknown option '\(word)' (see --help)")
            }
            guard let value = inline ?? words.popFirst() else { throw UsageError(description: "\(option) needs a value") }
            if option == "--trusted-proxy" {
                proxies = (proxiesFromOptions ? proxies ?? [] : []) + [value]
                proxiesFromOptions = true
            }
            values[option] = value
        }
        if let proxies {
            let addresses = proxies.flatMap { $0.split(separator: ",") }.map { String(HTTPHeaders.trimmed($0)) }.filter { !$0.isEmpty }
            guard let trusted = HTTPTrustedProxies(addresses) else {
                throw UsageError(description: "--trusted-proxy takes numeric IP addresses, got '\(proxies.joined(separator: ","))'")
            }
            options.trustedProxies = trusted
        }
        func integer(_ option: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int? {
            guard let text = values[option] else { return nil }
            guard let value = Int(text), range.contains(value) else {
                throw UsageError(description: "\(option) must be an integer between \(range.lowerBound) and \(range.upperBound), got '\(text)'")
            }
            return value
        }
        if let host = values["--host"] { options.host = host }
        if let port = try integer("--port", 0...65535) { options.port = port }
        if let database = values["--database"] {
            guard !database.isEmpty else { throw UsageError(description: "--database must not be empty") }
            options.database = database
        }
        if let directory = values["--flags-dir"] { options.flagsDirectory = directory }
        if let directory = values["--console-dir"] {
            guard !directory.isEmpty else { throw UsageError(description: "--console-dir must not be empty (\"off\" serves no console)") }
            options.consoleDirectory = directory
        }
        options.loops = try integer("--loops", 1...256)
        if let value = try integer("--max-body-bytes", 1...(1 << 30)) { options.maxBodyBytes = value }
        if let value = try integer("--max-header-bytes", 1024...(1 << 20)) { options.maxHeaderBytes = value }
        if let value = try integer("--max-connections", 1...1_000_000) { options.maxConnections = value }
        if let value = try integer("--auth-failure-limit", 0...1_000_000) { options.authFailureLimit = value }
        if let value = try integer("--event-heartbeat", 1...3600) { options.eventHeartbeatSeconds = value }
        if let value = try integer("--max-streams", 0...1_000_000) { options.maxStreams = value }
        func rate(_ option: String) throws(UsageError) -> Double? {
            guard let text = values[option] else { return nil }
            guard let value = Double(text), value.isFinite, value >= 1, value <= 1_000_000 else {
                throw UsageError(description: "\(option) must be a number between 1 and 1000000, got '\(text)'")
            }
            return value
        }
        if let environment = values["--ofrep-environment"] { options.ofrepEnvironment = environment }
        options.ofrepRateLimit = try rate("--ofrep-rate-limit")
        if let burst = try rate("--ofrep-burst") { options.ofrepBurst = burst }
        if let text = values["--log-level"] {
            guard let level = ServiceLogger.Level(name: text) else {
                throw UsageError(description: "--log-level must be debug, info, warning, error or off, got '\(text)'")
            }
            options.logLevel = level
        }
        return options
    }

    /// Splits `--database PATH` (or `--database=PATH`) out of an admin command line, so the rest goes to `AdminCommand`.
    static func extractDatabase(_ arguments: [String], environment: [String: String]) throws(UsageError) -> (String, [String]) {
        var database = environment["FLAGSERVER_DATABASE"] ?? ServerOptions().database
        var rest: [String] = []
        var words = arguments[...]
        while let word = words.popFirst() {
            if word == "--database" {
                guard let value = words.popFirst() else { throw UsageError(description: "--database needs a value") }
                database = value
            } else if word.hasPrefix("--database=") {
                database = String(word.dropFirst("--database=".count))
            } else {
                rest.append(word)
            }
        }
        return (database, rest)
    }

    /// The HTTP server configuration these options describe.
    func serverConfiguration(logger: ServiceLogger) -> HTTPServerConfiguration {
        var limits = HTTPServerConfiguration.Limits()
        limits.maxBodyBytes = maxBodyBytes
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
