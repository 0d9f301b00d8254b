import Foundation
import TestSupport
import Testing

/// `flagctl` on a pseudo-terminal (util-linux `script -qec`), with its keyboard fed from a pipe the test
/// writes to when it chooses: so a test can act while the real binary waits at its prompt.
final class InteractiveRun {
    private let process = Process()
    private let keyboard = Pipe()
    private let outputURL: URL
    private let scratch: URL

    /// Starts `flagctl arguments` with `environment` on a terminal.
    init(_ arguments: [String], environment: [String: String]) throws {
        let script = URL(fileURLWithPath: "/usr/bin/script")
        try #require(FileManager.default.isExecutableFile(atPath: script.path), "util-linux script(1) is needed for the prompt tests")
        scratch = try TestSupport.temporaryDirectory()
        outputURL = scratch.appendingPathComponent("terminal")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        let quoted = ([try TestSupport.binary().path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
        process.executableURL = script
        process.arguments = ["-qec", quoted.joined(separator: " "), "/dev/null"]
        process.currentDirectoryURL = TestSupport.packageRoot
        process.environment = ["PATH": "/usr/bin:/bin", "NO_COLOR": "1"].merging(environment) { _, new in new }
        process.standardInput = keyboard
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = process.standardOutput
        try process.run()
    }

    /// Everything the terminal showed so far.
    var output: String { String(decoding: (try? Data(contentsOf: outputURL)) ?? Data(), as: UTF8.self) }

    /// Polls (up to 30 s) until the terminal shows `text`.
    func waitFor(_ text: String) throws {
        let deadline = Date().addingTimeInterval(30)
        while !output.contains(text) {
            guard Date() < deadline, process.isRunning else {
                throw TestFailure("never saw '\(text)'; the terminal showed:\n\(output)")
            }
            usleep(20_000)
        }
    }

    /// Types `text`.
    func type(_ text: String) throws {
        try keyboard.fileHandleForWriting.write(contentsOf: Data(text.utf8))
    }

    /// Waits for the exit; returns the status and the terminal's text.
    func finish() throws -> (status: Int32, output: String) {
        // Polled with a deadline rather than a bare wait: a binary stuck at its prompt fails the test, not the run.
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw TestFailure("flagctl did not finish; the terminal showed:\n\(output)")
        }
        process.waitUntilExit()
        try? keyboard.fileHandleForWriting.close()
        defer { try? FileManager.default.removeItem(at: scratch) }
        return (process.terminationStatus, output)
    }
}
