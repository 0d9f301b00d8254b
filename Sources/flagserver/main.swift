import FlagService
import FlagStore
import Foundation
import HTTPServer

// Before any thread exists, so every thread inherits the blocked mask (see SignalWaiter).
SignalWaiter.blockTerminationSignals()

/// Prints `message` as one line on standard error and exits with `code`.
func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("flagserver: error: \(message)\n".utf8))
    exit(code)
}

/// The console's files: a directory given explicitly must load (or the server refuses to start); without
/// one, the default places are tried and a missing console is only a warning.
func loadConsole(_ directory: String?, logger: ServiceLogger) -> ConsoleAssets? {
    if directory == "off" { return nil }
    let executable = Bundle.main.executablePath ?? CommandLine.arguments[0]
    guard let path = directory ?? ConsoleAssets.locate(ConsoleAssets.defaultCandidates(
        executable: executable, workingDirectory: FileManager.default.currentDirectoryPath)) else {
        logger.log(.warning, "console_not_found", ["hint": "pass --console-dir DIR to serve /console"])
        return nil
    }
    do {
        let assets = try ConsoleAssets(directory: path)
        logger.log(.info, "console", ["directory": path, "files": "\(assets.fileNames.count)"])
        return assets
    } catch {
        fail("\(error)")
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
let environment = ProcessInfo.processInfo.environment

// Admin subcommands: token create|list|revoke, backup, check, against the database file.
if let (database, words) = try? ServerOptions.extractDatabase(arguments, environment: environment),
   AdminCommand.isAdminCommand(words) {
    let command: AdminCommand
    do {
        command = try AdminCommand.parse(words)
    } catch {
        fail("\(error)\n\(AdminCommand.usage)", code: 2)
    }
    do {
        let store = try FlagStore.open(path: database)
        let output = try command.run(store: store, actor: "flagserver-cli")
        store.close()
        FileHandle.standardOutput.write(Data(output.utf8))
        exit(0)
    } catch {
        fail("\(error)")
    }
}

let options: ServerOptions
do {
    options = try ServerOptions.parse(arguments, environment: environment)
} catch {
    fail("\(error.description)\n\(ServerOptions.usage)", code: 2)
}
if options.showHelp {
    FileHandle.standardOutput.write(Data((ServerOptions.usage + AdminCommand.usage + "\n").utf8))
    exit(0)
}

let logger = ServiceLogger(minimumLevel: options.logLevel)
let store: FlagStore
do {
    store = try FlagStore.open(path: options.database)
    // A file that opens but is damaged inside fails here, not at the first request.
    let check = try store.integrityCheck()
    guard check == ["ok"] else { fail("database \(options.database) failed integrity_check: \(check.prefix(3).joined(separator: "; "))") }
} catch {
    fail("\(error)")
}

var isDirectory: ObjCBool = false
if FileManager.default.fileExists(atPath: options.flagsDirectory, isDirectory: &isDirectory), isDirectory.boolValue {
    do {
        try FlagService.seed(store: store, flagsDirectory: options.flagsDirectory, logger: logger)
    } catch {
        fail("\(error)\nrefusing to start: fix the file, then start again")
    }
} else {
    logger.log(.warning, "no_flags_directory", ["path": options.flagsDirectory])
}

let service: FlagService
do {
    var serviceOptions = FlagService.Options(requireReadToken: options.requireReadToken)
    serviceOptions.ofrep = FlagService.OFREPOptions(defaultEnvironment: options.ofrepEnvironment, rateLimit: options.ofrepRateLimit,
                                                    rateBurst: options.ofrepBurst)
    serviceOptions.console = loadConsole(options.consoleDirectory, logger: logger)
    serviceOptions.trustedProxies = options.trustedProxies
    serviceOptions.authFailureLimit = options.authFailureLimit
    service = try FlagService(store: store, options: serviceOptions, logger: logger)
} catch {
    fail("\(error)")
}

let server: HTTPServer
let port: Int
do {
    server = HTTPServer(configuration: options.serverConfiguration(logger: logger), handler: try service.makeRouter())
    service.attach(server)
    port = try server.start()
} catch {
    // The loops share one listener bound without SO_REUSEPORT, so a second flagserver on the same port
    // fails here instead of silently splitting the traffic with the first (each with its own database).
    if error.errno == EADDRINUSE { fail("port \(options.port) on \(options.host) is already in use (another flagserver?)") }
    fail("cannot listen on \(options.host):\(options.port): \(error)")
}

let versions = service.snapshots.all().sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.version)" }.joined(separator: ",")
logger.log(.info, "started", ["host": options.host, "port": "\(port)", "database": options.database,
                              "loops": "\(server.configuration.eventLoops)", "versions": versions])
let shownHost = options.host.contains(":") ? "[\(options.host)]" : options.host
FileHandle.standardOutput.write(Data("listening on http://\(shownHost):\(port)\n".utf8))

let signalNumber = SignalWaiter.wait()
logger.log(.info, "stopping", ["signal": signalNumber == SIGTERM ? "SIGTERM" : "SIGINT"])
server.shutdown(gracePeriod: .seconds(10))
service.shutdown()
store.close()
logger.log(.info, "stopped")
exit(0)
