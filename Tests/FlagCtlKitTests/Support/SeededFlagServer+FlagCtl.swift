import Foundation
import TestSupport

extension SeededFlagServer {
    /// Which token a run gets.
    enum Token {
        case writer, none, value(String)
    }

    /// The environment `flagctl` needs for this server.
    func environment(token: Token = .writer) -> [String: String] {
        var environment = ["FLAGCTL_SERVER": url]
        switch token {
        case .writer: environment["FLAGCTL_TOKEN"] = writerToken
        case .none: break
        case .value(let value): environment["FLAGCTL_TOKEN"] = value
        }
        return environment
    }

    /// Runs `flagctl` against this server with the writer token (or `environment`).
    func flagctl(_ arguments: [String], environment: [String: String]? = nil, input: String? = nil,
                 in directory: URL? = nil) throws -> TestSupport.Run {
        try TestSupport.run(arguments, in: directory, environment: environment ?? self.environment(), input: input)
    }
}
