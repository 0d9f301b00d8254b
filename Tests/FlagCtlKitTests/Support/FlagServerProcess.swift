import Foundation
import Testing

/// A real `flagserver` process on 127.0.0.1 port 0 with a temp database and a temp flags directory,
/// seeded from the package's `flags/*.json` (production, staging), with a writer token made by its own
/// admin subcommand. `stop()` (or deinit, or the test process's death) sends it SIGTERM.
final class FlagServerProcess {
    /// `http://127.0.0.1:PORT`.
    let url: String
    /// The temp directory holding the database, the flags and the logs.
    let directory: URL
    /// The SQLite file.
    let database: String
    /// A token with role writer, named `ci`.
    private(set) var writerToken = ""
    private let process: Process
    private let lifeline = Pipe()

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The built `flagserver`, next to the built `flagctl`.
    static func binary() throws -> URL {
        let url = try TestSupport.binary().deletingLastPathComponent().appendingPathComponent("flagserver")
        guard FileManager.default.isExecutableFile(atPath: url.path) else { throw Failure(description: "flagserver not built at \(url.path)") }
        return url
    }

    /// Starts the server and waits (polling, up to 30 s) for its `listening on` line. With `policies`, the
    /// repository's `flags/policy/` too (production protects premiumFeaturesLocked and monetizationEnabled).
    init(flags: [String: String]? = nil, policies: Bool = false) throws {
        directory = try TestSupport.temporaryDirectory()
        let flagsDirectory = directory.appendingPathComponent("flags")
        try FileManager.default.createDirectory(at: flagsDirectory, withIntermediateDirectories: true)
        let files = try flags ?? ["production": String(decoding: TestSupport.bytes("flags/production.json"), as: UTF8.self),
                                  "staging": String(decoding: TestSupport.bytes("flags/staging.json"), as: UTF8.self)]
        for (name, content) in files { try Data(content.utf8).write(to: flagsDirectory.appendingPathComponent("\(name).json")) }
        if policies {
            let policyDirectory = flagsDirectory.appendingPathComponent("policy")
            try FileManager.default.createDirectory(at: policyDirectory, withIntermediateDirectories: true)
            for name in ["production", "staging"] {
                try Data(try TestSupport.bytes("flags/policy/\(name).json")).write(to: policyDirectory.appendingPathComponent("\(name).json"))
            }
        }
        database = directory.appendingPathComponent("flags.sqlite").path
        let stdoutURL = directory.appendingPathComponent("server.out")
        let stderrURL = directory.appendingPathComponent("server.err")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        // Through a small shell that holds the server's lifetime to a pipe from this process: `stop()` closes
        // the pipe, and so does the kernel if the test process crashes, so no server outlives its test.
        // No `wait` in the shell: it inherits a signal mask from the test process in which its wait for
        // SIGCHLD never returns; the stopped server is reaped by init instead.
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", #""$0" "$@" & server=$!; read -r _ignored; kill -TERM "$server""#,
                             try Self.binary().path, "--port", "0", "--database", database, "--flags-dir", flagsDirectory.path]
        process.environment = ["PATH": "/usr/bin:/bin"]
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        process.standardInput = lifeline
        try process.run()
        var found: String?
        let deadline = Date().addingTimeInterval(30)
        while found == nil, Date() < deadline, process.isRunning {
            let text = String(decoding: (try? Data(contentsOf: stdoutURL)) ?? Data(), as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                found = String(line.dropFirst("listening on ".count))
            } else {
                usleep(20_000)
            }
        }
        guard let found else {
            let log = String(decoding: (try? Data(contentsOf: stderrURL)) ?? Data(), as: UTF8.self)
            try? lifeline.fileHandleForWriting.close()
            process.waitUntilExit()
            throw Failure(description: "flagserver did not print its listening line; log:\n\(log)")
        }
        url = found
        writerToken = try token(name: "ci", role: "writer")
    }

    /// Creates a token with `flagserver token create` against the running server's database.
    func token(name: String, role: String) throws -> String {
        let run = try TestSupport.run(["token", "create", "--name", name, "--role", role, "--database", database], executable: try Self.binary())
        let lines = run.stdout.split(separator: "\n")
        guard run.status == 0, lines.count >= 2 else { throw Failure(description: "token create failed: \(run.stderr)") }
        return String(lines[1])
    }

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

    /// Stops the server (SIGTERM) and waits for it.
    func stop() {
        try? lifeline.fileHandleForWriting.close()
        if process.isRunning { process.waitUntilExit() }
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}

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
                throw FlagServerProcess.Failure(description: "never saw '\(text)'; the terminal showed:\n\(output)")
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
            throw FlagServerProcess.Failure(description: "flagctl did not finish; the terminal showed:\n\(output)")
        }
        process.waitUntilExit()
        try? keyboard.fileHandleForWriting.close()
        defer { try? FileManager.default.removeItem(at: scratch) }
        return (process.terminationStatus, output)
    }
}
