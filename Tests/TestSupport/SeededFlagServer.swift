import Foundation
import Glibc

/// A real `flagserver` on 127.0.0.1 port 0 over a SQLite database in `directory`, its flags directory seeded with the
/// repository's `flags/production.json` and `flags/staging.json` (or the documents given, and `flags/policy/` when
/// asked), and a writer token made by its own `token create` before it starts: what the client's and flagctl's tests
/// talk to. `stop()` (or the last reference going) sends SIGTERM and waits.
package final class SeededFlagServer: @unchecked Sendable {
    /// `http://127.0.0.1:PORT`.
    package let url: String
    /// ``url`` with a trailing slash, for relative references.
    package let baseURL: URL
    /// The directory holding the database, the flags and the server's output.
    package let directory: URL
    /// The SQLite file.
    package let database: String
    /// A token with role writer.
    package let writerToken: String
    /// The running process.
    package let process: FlagServerProcess
    /// Whether ``stop()`` removes ``directory`` (it does when the server made it).
    private let ownsDirectory: Bool

    /// Seeds `directory` (a new temporary one when nil; a flags directory already there is kept, so a server can be
    /// started again over the same files), makes the writer token `tokenName` unless `writerToken` is one made before,
    /// starts the server with `arguments` added and waits for its ready line.
    package init(directory given: URL? = nil, flags: [String: String]? = nil, policies: Bool = false, writerToken existing: String? = nil,
                 tokenName: String = "ci", arguments: [String] = []) throws {
        directory = try given ?? URL(fileURLWithPath: makeTemporaryDirectory())
        ownsDirectory = given == nil
        database = directory.appendingPathComponent("flags.sqlite").path
        let flagsDirectory = directory.appendingPathComponent("flags")
        if !FileManager.default.fileExists(atPath: flagsDirectory.path) {
            try Self.seed(flagsDirectory, flags: flags, policies: policies)
        }
        writerToken = try existing ?? Self.createToken(name: tokenName, role: "writer", database: database, directory: directory.path)
        process = try FlagServerProcess(["--port", "0", "--database", database, "--flags-dir", flagsDirectory.path] + arguments,
                                        directory: directory.path)
        do {
            let port = try process.blockingWaitUntilReady(timeoutSeconds: 60)
            url = "http://127.0.0.1:\(port)"
            guard let base = URL(string: url + "/") else { throw TestFailure("not a URL: \(url)/") }
            baseURL = base
        } catch {
            process.blockingStop()
            throw error
        }
    }

    deinit { stop() }

    /// Creates a token with `flagserver token create` against the server's database; its secret.
    package func token(name: String, role: String) throws -> String {
        try Self.createToken(name: name, role: role, database: database, directory: directory.path)
    }

    /// Stops the server (SIGTERM) and waits for it; removes the directory when the server made it.
    package func stop() {
        process.blockingStop()
        if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
    }

    private static func seed(_ flagsDirectory: URL, flags: [String: String]?, policies: Bool) throws {
        try FileManager.default.createDirectory(at: flagsDirectory, withIntermediateDirectories: true)
        let repositoryFlags = repositoryRoot.appendingPathComponent("flags")
        if let flags {
            for (name, content) in flags { try Data(content.utf8).write(to: flagsDirectory.appendingPathComponent("\(name).json")) }
        } else {
            for name in ["production.json", "staging.json"] {
                try FileManager.default.copyItem(at: repositoryFlags.appendingPathComponent(name), to: flagsDirectory.appendingPathComponent(name))
            }
        }
        if policies {
            let policyDirectory = flagsDirectory.appendingPathComponent("policy")
            try FileManager.default.createDirectory(at: policyDirectory, withIntermediateDirectories: true)
            for name in ["production.json", "staging.json"] {
                try FileManager.default.copyItem(at: repositoryFlags.appendingPathComponent("policy/\(name)"),
                                                 to: policyDirectory.appendingPathComponent(name))
            }
        }
    }

    private static func createToken(name: String, role: String, database: String, directory: String) throws -> String {
        let created = try FlagServerProcess.blockingRun(["token", "create", "--name", name, "--role", role, "--database", database],
                                                        directory: directory)
        guard created.status == 0, let secret = created.stdout.split(separator: "\n").first(where: { $0.hasPrefix("sfl_") }) else {
            throw TestFailure("flagserver token create \(name): \(created.status) \(created.stderr)")
        }
        return String(secret)
    }
}
