// Serves flag documents through ONLY the OFREP routes of FlagOFREP, for the Python interop tests,
// schemathesis and the benchmark, until the real flagserver mounts them.
//
// usage: ofrep-test-server --env NAME=DOCUMENT.json [--env ...] [--port N] [--event-loops N]
//                          [--rate PER_SECOND --burst N] [--reader-token TOKEN[@env,env]]...
// The first --env is the default environment (served at /ofrep/v1/...). Prints
// "listening on http://127.0.0.1:PORT" when ready; stops on SIGINT or SIGTERM.
import FlagKit
import FlagOFREP
import Foundation
import Glibc
import HTTPServer

/// Why the server did not start, printed on stderr with exit status 2.
struct Failure: Error, CustomStringConvertible {
    let description: String
}

/// The command line.
struct Options {
    var environments: [(name: String, path: String)] = []
    var port = 0
    var eventLoops = 0
    var rate: Double?
    var burst: Double?
    /// Token → environments it may read (empty: all).
    var readerTokens: [String: Set<String>] = [:]

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let v = rest.popFirst() else { throw Failure(description: "\(flag) needs a value") }
            return v
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--env":
                let spec = try value(flag)
                guard let eq = spec.firstIndex(of: "="), eq != spec.startIndex else {
                    throw Failure(description: "--env wants NAME=DOCUMENT.json, got \(spec)")
                }
                environments.append((String(spec[..<eq]), String(spec[spec.index(after: eq)...])))
            case "--port":
                guard let p = Int(try value(flag)), (0...65535).contains(p) else { throw Failure(description: "bad --port") }
                port = p
            case "--event-loops":
                guard let n = Int(try value(flag)), n > 0 else { throw Failure(description: "bad --event-loops") }
                eventLoops = n
            case "--rate":
                guard let r = Double(try value(flag)) else { throw Failure(description: "bad --rate") }
                rate = r
            case "--burst":
                guard let b = Double(try value(flag)) else { throw Failure(description: "bad --burst") }
                burst = b
            case "--reader-token":
                let spec = try value(flag)
                let parts = spec.split(separator: "@", maxSplits: 1)
                guard let token = parts.first, !token.isEmpty else { throw Failure(description: "empty --reader-token") }
                readerTokens[String(token)] = parts.count == 2 ? Set(parts[1].split(separator: ",").map(String.init)) : []
            default:
                throw Failure(description: "unknown option \(flag)")
            }
        }
        guard !environments.isEmpty else { throw Failure(description: "at least one --env NAME=DOCUMENT.json is needed") }
    }
}

/// 401 without a token or with an unknown one, 403 for a token limited to other environments.
func readerTokenCheck(_ tokens: [String: Set<String>]) -> @Sendable (HTTPRequest, String) -> OFREPAccess {
    OFREPTokenAuthorizer { token in
        guard let allowed = tokens[token] else { return .unknown }
        return allowed.isEmpty ? .allEnvironments : .environments(allowed)
    }.closure
}

func run() throws -> Int32 {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    var snapshots: [String: OFREPSnapshot] = [:]
    for (name, path) in options.environments {
        guard let data = FileManager.default.contents(atPath: path) else { throw Failure(description: "cannot read \(path)") }
        do {
            snapshots[name] = OFREPSnapshot(document: try FlagDocument.decode(Array(data)), version: 1, environment: name)
        } catch {
            throw Failure(description: "\(path): \(error)")
        }
    }
    var limiter: TokenBucketRateLimiter?
    if options.rate != nil || options.burst != nil {
        let rate = options.rate ?? 10
        guard let made = TokenBucketRateLimiter(rate: rate, burst: options.burst ?? rate) else {
            throw Failure(description: "--rate must be > 0 and --burst >= 1")
        }
        limiter = made
    }
    let authorize = options.readerTokens.isEmpty ? nil : readerTokenCheck(options.readerTokens)
    let frozen = snapshots
    var builder = HTTPRouter.Builder()
    OFREPRoutes.register(in: &builder, configuration: OFREPRouteConfiguration(
        defaultEnvironment: options.environments[0].name, snapshot: { frozen[$0] }, authorize: authorize, rateLimiter: limiter))
    var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: options.port)
    if options.eventLoops > 0 { configuration.eventLoops = options.eventLoops }
    // Block the stop signals before the loop threads start, so that they inherit the mask and
    // only sigwait below receives them.
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    pthread_sigmask(SIG_BLOCK, &signals, nil)
    let server = HTTPServer(configuration: configuration, handler: try builder.build())
    let port = try server.start()
    FileHandle.standardOutput.write(Data("listening on http://127.0.0.1:\(port)\n".utf8))
    var received: Int32 = 0
    sigwait(&signals, &received)
    server.shutdown(gracePeriod: .seconds(2))
    return 0
}

do {
    exit(try run())
} catch {
    FileHandle.standardError.write(Data("ofrep-test-server: \(error)\n".utf8))
    exit(2)
}
