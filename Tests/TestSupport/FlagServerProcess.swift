import Foundation
import Glibc

/// A real `flagserver` process: started with arguments, waited for until it prints its ready line,
/// and stopped with a signal. stdout and stderr go to files so nothing blocks on a full pipe.
package final class FlagServerProcess: @unchecked Sendable {
    /// The running process.
    package let process: SpawnedProcess
    /// The file its standard output goes to.
    package let stdoutPath: String
    /// The file its standard error goes to.
    package let stderrPath: String
    /// The port from its ready line (0 until ``waitUntilReady(timeoutSeconds:)`` saw it).
    package private(set) var port = 0

    /// The built `flagserver`: next to the test bundle, or `.build/debug/flagserver` from this file's path.
    package static func binaryPath() throws -> String { try builtProduct("flagserver") }

    /// The built executable `name` (`flagserver`, `flagctl`): next to the test bundle, or in `.build/debug`.
    package static func builtProduct(_ name: String) throws -> String {
        var candidates: [URL] = []
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
            for _ in 0..<4 {
                candidates.append(directory.appendingPathComponent(name))
                directory.deleteLastPathComponent()
            }
        }
        candidates.append(repositoryRoot.appendingPathComponent(".build/debug/\(name)"))
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate.path) {
            return candidate.path
        }
        throw TestFailure("\(name) binary not found in \(candidates.map(\.path))")
    }

    /// Runs `flagserver arguments` to completion (admin subcommands, refusals): exit status, stdout, stderr.
    package static func run(_ arguments: [String], directory: String) async throws -> (status: Int32, signaled: Bool, stdout: String, stderr: String) {
        try await offPool { try blockingRun(arguments, directory: directory) }
    }

    /// ``run(_:directory:)`` on the calling thread.
    package static func blockingRun(_ arguments: [String], directory: String) throws -> (status: Int32, signaled: Bool, stdout: String, stderr: String) {
        let server = try FlagServerProcess(arguments, directory: directory)
        // A command that should exit but serves instead must fail the test, not hang it.
        let deadline = Date().addingTimeInterval(60)
        while server.process.isRunning && Date() < deadline { usleep(10_000) }
        if server.process.isRunning {
            server.blockingStop(signal: SIGKILL)
            throw TestFailure("flagserver \(arguments) did not exit: \(server.output) \(server.errors)")
        }
        server.process.waitUntilExit()
        return (server.process.terminationStatus, server.process.terminationReason == .uncaughtSignal,
                server.output, server.errors)
    }

    /// Starts `flagserver arguments` in `directory` (its working directory).
    package init(_ arguments: [String], directory: String) throws {
        let id = UUID().uuidString.prefix(8)
        stdoutPath = directory + "/stdout-\(id).txt"
        stderrPath = directory + "/stderr-\(id).txt"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process = try SpawnedProcess(try Self.binaryPath(), arguments, directory: directory, stdout: stdoutPath, stderr: stderrPath)
    }

    /// Everything it wrote to standard output so far.
    package var output: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    /// Everything it wrote to standard error so far.
    package var errors: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Polls stdout for `listening on http://127.0.0.1:PORT` (generous timeout); fails when the process exits first.
    @discardableResult
    package func waitUntilReady(timeoutSeconds: Double = 60) async throws -> Int {
        try await offPool { [self] in try blockingWaitUntilReady(timeoutSeconds: timeoutSeconds) }
    }

    /// ``waitUntilReady(timeoutSeconds:)`` on the calling thread.
    package func blockingWaitUntilReady(timeoutSeconds: Double) throws -> Int {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if let line = output.split(separator: "\n").first(where: { $0.hasPrefix("listening on http://") }),
               let colon = line.lastIndex(of: ":"), let port = Int(line[line.index(after: colon)...]) {
                self.port = port
                return port
            }
            guard process.isRunning else {
                throw TestFailure("flagserver exited (\(process.terminationStatus)) before it was ready: \(errors)")
            }
            usleep(20_000)
        }
        throw TestFailure("flagserver not ready after \(timeoutSeconds) s: \(errors)")
    }

    /// Sends `signal` and waits (off the cooperative pool) for the process to end.
    package func stop(signal: Int32 = SIGTERM) async {
        _ = try? await offPool { [self] in blockingStop(signal: signal) }
    }

    /// Sends `signal` and waits for the process to end.
    package func blockingStop(signal: Int32 = SIGTERM) {
        if process.isRunning { kill(process.processIdentifier, signal) }
        process.waitUntilExit()
    }
}
