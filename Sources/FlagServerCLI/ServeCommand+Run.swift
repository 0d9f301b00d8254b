import AppStoreNotifications
import CommandLineKit
import FlagService
import FlagStore
import Foundation
import HTTPServer

/// Starting, serving until SIGTERM or SIGINT, and stopping gracefully.
extension ServeCommand {
    /// Opens and checks the database, seeds it on first start, serves, and on SIGTERM or SIGINT stops gracefully (exit 0).
    /// A database that cannot be opened or fails the start-up `integrity_check`, an invalid seed file or a port that cannot be bound
    /// prints one `flagserver: error: ...` line and gives 1. The caller must have blocked the termination signals
    /// (`SignalWaiter.blockTerminationSignals()`) before any thread was created.
    public func run(_ context: FlagServerContext) -> Int32 {
        let logger = ServiceLogger(minimumLevel: logLevel)
        // The App Store root certificates and offer key are read before anything starts: a wrong file is a usage
        // error (64).
        let appStoreVerifier: SignedPayloadVerifier?
        let offerSigner: PromotionalOfferSigner?
        do {
            appStoreVerifier = try self.appStoreVerifier()
            offerSigner = try appStoreOfferSigner()
        } catch {
            context.stderr.write("flagserver: error: \(error.message)\nSee 'flagserver --help'.\n")
            return UsageError.exitStatus
        }
        let database = context.database
        let store: FlagStore
        do {
            store = try FlagStore.open(location: database, databaseTimeout: databaseTimeout)
            // A file that opens but is damaged inside fails here, not at the first request. Bounded: the history
            // tables are checked by `flagserver check` and by every backup (FlagStore.startupCheck).
            let check = try store.startupCheck()
            guard check == ["ok"] else { return context.fail("database \(store.location) failed integrity_check: \(check.prefix(3).joined(separator: "; "))") }
        } catch {
            return context.fail("\(error)")
        }

        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: flagsDirectory, isDirectory: &isDirectory), isDirectory.boolValue {
            do {
                try FlagService.seed(store: store, flagsDirectory: flagsDirectory, logger: logger)
                try FlagService.seedPolicies(store: store, policyDirectory: (flagsDirectory as NSString).appendingPathComponent("policy"),
                                             logger: logger)
            } catch {
                return context.fail("\(error)\nrefusing to start: fix the file, then start again")
            }
        } else {
            logger.log(.warning, "no_flags_directory", ["path": flagsDirectory])
        }

        let service: FlagService
        do {
            var serviceOptions = FlagService.Options(requireReadToken: requireReadToken)
            serviceOptions.ofrep = FlagService.OFREPOptions(defaultEnvironment: ofrepEnvironment, rateLimit: ofrepRateLimit, rateBurst: ofrepBurst)
            serviceOptions.console = try loadConsole(logger: logger)
            serviceOptions.trustedProxies = trustedProxies
            serviceOptions.authFailureLimit = authFailureLimit
            serviceOptions.webhooks.retry.baseMilliseconds = Int64(webhookRetryBaseMilliseconds)
            serviceOptions.webhooks.destinations.allowedNetworks = webhookAllowedNetworks
            serviceOptions.appStore = appStoreOptions(verifier: appStoreVerifier, offerSigner: offerSigner)
            service = try FlagService(store: store, options: serviceOptions, logger: logger)
        } catch {
            return context.fail("\(error)")
        }

        let server: HTTPServer
        let boundPort: Int
        do {
            server = HTTPServer(configuration: serverConfiguration(logger: logger), handler: try service.makeRouter())
            service.attach(server)
            boundPort = try server.start()
        } catch {
            // The loops share one listener bound without SO_REUSEPORT, so a second flagserver on the same port
            // fails here instead of silently splitting the traffic with the first (each with its own database).
            if error.errno == EADDRINUSE { return context.fail("port \(port) on \(host) is already in use (another flagserver?)") }
            return context.fail("cannot listen on \(host):\(port): \(error)")
        }

        let versions = service.snapshots.all().sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.version)" }.joined(separator: ",")
        logger.log(.info, "started", ["host": host, "port": "\(boundPort)", "database": store.location,
                                      "loops": "\(server.configuration.eventLoops)", "versions": versions])
        if !webhookAllowedNetworks.isEmpty {
            // Said once at start: an allowed network is a deliberate hole in the webhooks' SSRF guard.
            logger.log(.info, "webhook_allowed_networks", ["networks": webhookAllowedNetworks.map(\.description).joined(separator: ",")])
        }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        context.stdout.write("listening on http://\(shownHost):\(boundPort)\n")

        let signalNumber = SignalWaiter.wait()
        logger.log(.info, "stopping", ["signal": signalNumber == SIGTERM ? "SIGTERM" : "SIGINT"])
        server.shutdown(gracePeriod: .seconds(10))
        service.shutdown()
        store.close()
        logger.log(.info, "stopped")
        return 0
    }

    /// The console's files: a directory given explicitly must load (or the server refuses to start); without
    /// one, the default places are tried and a missing console is only a warning.
    private func loadConsole(logger: ServiceLogger) throws -> ConsoleAssets? {
        if consoleDirectory == "off" { return nil }
        let executable = Bundle.main.executablePath ?? CommandLine.arguments.first ?? "flagserver"
        guard let path = consoleDirectory ?? ConsoleAssets.locate(ConsoleAssets.defaultCandidates(
            executable: executable, workingDirectory: FileManager.default.currentDirectoryPath)) else {
            logger.log(.warning, "console_not_found", ["hint": "pass --console-dir DIR to serve /console"])
            return nil
        }
        let assets = try ConsoleAssets(directory: path)
        logger.log(.info, "console", ["directory": path, "files": "\(assets.fileNames.count)"])
        return assets
    }
}
