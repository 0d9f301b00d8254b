import CommandLineKit
import FlagService
import HTTPServer
import Testing
@testable import FlagServerCLI

/// Serving's options on arrays: defaults, variables, options winning over variables, and every refusal.
@Suite struct ServeCommandTests {
    private func serve(_ arguments: [String], environment: [String: String] = [:]) throws -> ServeCommand {
        try #require(parsedCommand(arguments, environment: environment) as? ServeCommand)
    }

    @Test func defaults() throws {
        let options = try serve([])
        #expect(options.host == "127.0.0.1" && options.port == 8080 && options.flagsDirectory == "./flags" && options.loops == nil)
        #expect(options.logLevel == .info && !options.requireReadToken && options.ofrepEnvironment == "production")
        #expect(options.ofrepRateLimit == nil && options.ofrepBurst == 50 && options.consoleDirectory == nil)
        #expect(options.authFailureLimit == 10 && options.eventHeartbeatSeconds == 25 && options.trustedProxies == .none)
        #expect(options.webhookRetryBaseMilliseconds == 1000 && options.maxBufferedBodyBytes == 32 * 1024 * 1024)
        #expect(options.webhookAllowedNetworks.isEmpty, "nothing inside is allowed unless asked for")
    }

    @Test func everyOptionAndItsVariable() throws {
        let given = try serve(["--host", "0.0.0.0", "--port=0", "--flags-dir", "f", "--loops", "2", "--max-body-bytes", "10",
                               "--max-header-bytes", "2048", "--max-connections", "5", "--log-level", "debug", "--require-read-token",
                               "--ofrep-environment", "staging", "--ofrep-rate-limit", "5", "--ofrep-burst", "7", "--console-dir", "off",
                               "--auth-failure-limit", "0", "--event-heartbeat", "1", "--max-streams", "3", "--webhook-retry-base-ms", "50"])
        #expect(given.host == "0.0.0.0" && given.port == 0 && given.flagsDirectory == "f" && given.loops == 2)
        #expect(given.maxBodyBytes == 10 && given.maxHeaderBytes == 2048 && given.maxConnections == 5 && given.logLevel == .debug)
        #expect(given.requireReadToken && given.ofrepEnvironment == "staging" && given.ofrepRateLimit == 5 && given.ofrepBurst == 7)
        #expect(given.consoleDirectory == "off" && given.authFailureLimit == 0 && given.eventHeartbeatSeconds == 1 && given.maxStreams == 3)
        #expect(given.webhookRetryBaseMilliseconds == 50)
        #expect(try serve([], environment: ["FLAGSERVER_WEBHOOK_RETRY_BASE_MS": "200"]).webhookRetryBaseMilliseconds == 200)
        #expect(try serve(["--max-buffered-body-bytes", "4096"]).maxBufferedBodyBytes == 4096)
        #expect(try serve([], environment: ["FLAGSERVER_MAX_BUFFERED_BODY_BYTES": "8192"]).maxBufferedBodyBytes == 8192)
        let environment = ["FLAGSERVER_HOST": "::", "FLAGSERVER_PORT": "9", "FLAGSERVER_REQUIRE_READ_TOKEN": "true",
                           "FLAGSERVER_LOG_LEVEL": "off", "FLAGSERVER_MAX_STREAMS": "4"]
        let fromVariables = try serve([], environment: environment)
        #expect(fromVariables.host == "::" && fromVariables.port == 9 && fromVariables.requireReadToken)
        #expect(fromVariables.logLevel == .off && fromVariables.maxStreams == 4)
        #expect(try serve(["--port", "10"], environment: environment).port == 10, "options win over variables")
        #expect(try !serve([], environment: ["FLAGSERVER_REQUIRE_READ_TOKEN": "0"]).requireReadToken)
    }

    @Test func trustedProxiesAddUpAndReplaceTheVariable() throws {
        let environment = ["FLAGSERVER_TRUSTED_PROXIES": "10.0.0.1, 10.0.0.2"]
        #expect(try serve([], environment: environment).trustedProxies == HTTPTrustedProxies(["10.0.0.1", "10.0.0.2"]))
        #expect(try serve(["--trusted-proxy", "127.0.0.1", "--trusted-proxy", "::1,10.0.0.3"], environment: environment).trustedProxies
                == HTTPTrustedProxies(["127.0.0.1", "::1", "10.0.0.3"]))
    }

    @Test func webhookNetworksAddUpAndReplaceTheVariable() throws {
        let environment = ["FLAGSERVER_WEBHOOK_ALLOW_NETWORK": "10.20.0.0/16, fd00::/8 192.168.7.0/24"]
        #expect(try serve([], environment: environment).webhookAllowedNetworks
                == [try IPNetwork("10.20.0.0/16"), try IPNetwork("fd00::/8"), try IPNetwork("192.168.7.0/24")])
        #expect(try serve(["--webhook-allow-network", "127.0.0.0/8", "--webhook-allow-network=::1"], environment: environment).webhookAllowedNetworks
                == [try IPNetwork("127.0.0.0/8"), try IPNetwork("::1/128")], "the option replaces the variable")
        #expect(try serve(["--webhook-allow-network", "127.0.0.0/8,10.0.0.0/8"]).webhookAllowedNetworks.count == 2)
    }

    @Test(arguments: [
        (["--prot", "1"], "unknown option '--prot'"),
        (["--port", "70000"], "--port must be an integer between 0 and 65535, got '70000'"),
        (["--port"], "option '--port' needs a value <n>"),
        (["--loops", "0"], "--loops must be an integer between 1 and 256, got '0'"),
        (["--log-level", "loud"], "--log-level must be debug, info, warning, error or off, got 'loud'"),
        (["--ofrep-burst", "0.5"], "--ofrep-burst must be a number between 1 and 1000000, got '0.5'"),
        (["--console-dir", ""], "--console-dir must not be empty (\"off\" serves no console)"),
        (["--trusted-proxy", "proxy.local"], "--trusted-proxy takes numeric IP addresses, got 'proxy.local'"),
        (["--max-buffered-body-bytes", "0"], "--max-buffered-body-bytes must be an integer between 1 and 1099511627776, got '0'"),
        (["--webhook-retry-base-ms", "0"], "--webhook-retry-base-ms must be an integer between 1 and 3600000, got '0'"),
        (["--webhook-allow-network", "10.0.0.1/8"], "--webhook-allow-network: '10.0.0.1/8' is not a network (CIDR such as "
            + "10.0.0.0/8 or fc00::/7): bits are set past the prefix length (the block is 10.0.0.0/8)"),
        (["--webhook-allow-network", "127.0.0.0/33"], "--webhook-allow-network: '127.0.0.0/33' is not a network (CIDR such as "
            + "10.0.0.0/8 or fc00::/7): the prefix length must be a whole number from 0 to 32"),
        (["--webhook-allow-network", "internal.example"], "--webhook-allow-network: 'internal.example' is not a network (CIDR such as "
            + "10.0.0.0/8 or fc00::/7): 'internal.example' is not a numeric IPv4 or IPv6 address"),
        (["--webhook-allow-network", ","], "--webhook-allow-network needs a network in CIDR notation (10.20.0.0/16), got ','"),
    ])
    func refusals(arguments: [String], message: String) {
        #expect(usageError(arguments)?.message == message)
        #expect(usageError(arguments)?.usage == "flagserver [<options>]")
    }

    @Test func theHTTPConfigurationFollowsTheOptions() throws {
        let configuration = try serve(["--port", "0", "--max-body-bytes", "10", "--max-streams", "3", "--event-heartbeat", "2",
                                       "--max-buffered-body-bytes", "65536"])
            .serverConfiguration(logger: ServiceLogger(minimumLevel: .off) { _ in })
        #expect(configuration.port == 0 && configuration.limits.maxBodyBytes == 10 && configuration.limits.maxBufferedBodyBytes == 65536)
        #expect(configuration.streams.maxStreams == 3 && configuration.streams.heartbeatInterval == .seconds(2))
    }
}
