import Foundation
import TestSupport

extension SeededFlagServer {
    /// The server of the client's end-to-end tests in `directory`: the flag documents without `flags/policy/` (these
    /// tests flip premiumFeaturesLocked with one writer token, which production's policy would turn into a change
    /// request; the governance tests cover that), warnings only, one event loop. `existingToken`: the writer token of a
    /// database used before.
    convenience init(directory: TemporaryDirectory, existingToken: String? = nil) throws {
        try self.init(directory: directory.url, writerToken: existingToken, tokenName: "t",
                      arguments: ["--log-level", "warning", "--loops", "1"])
    }

    /// `curl -X PUT` of `json` to `path` with the writer token; returns the HTTP status.
    func curlPut(_ path: String, json: String) throws -> Int {
        try curl("PUT", path, json: json)
    }

    /// `curl -X <method>` of `json` to `path` with the writer token and a change message; returns the HTTP status.
    func curl(_ method: String, _ path: String, json: String) throws -> Int {
        let output = try Self.run("/usr/bin/curl", [
            "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-X", method,
            "-H", "Authorization: Bearer \(writerToken)", "-H", "Content-Type: application/json",
            "-H", "X-Change-Message: end-to-end test", "--data-binary", json,
            url + path,
        ])
        return Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// ``curlPut(_:json:)`` on a thread of its own.
    func curlPutOffPool(_ path: String, json: String) async throws -> Int {
        try await offPool { [self] in try curlPut(path, json: json) }
    }

    /// ``curl(_:_:json:)`` on a thread of its own.
    func curlOffPool(_ method: String, _ path: String, json: String) async throws -> Int {
        try await offPool { [self] in try curl(method, path, json: json) }
    }

    /// `flagserver_open_streams` from `/metrics`.
    func openStreams() throws -> Int {
        let text = try Self.run("/usr/bin/curl", ["-sS", url + "/metrics"])
        let line = text.split(separator: "\n").first { $0.hasPrefix("flagserver_open_streams ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
    }

    /// Runs a command to completion; its standard output and error, or a failure with them.
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw TestFailure("\(([executable] + arguments).joined(separator: " ")) exited with \(process.terminationStatus): \(text)")
        }
        return text
    }
}
