import FlagKit
import Foundation
import Testing
@testable import FlagCtlKit

/// The real `flagctl` binary, temp files and fixture documents shared by the tests.
enum TestSupport {
    /// The package's root directory.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// What one run of the binary gave.
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    enum SupportError: Error, CustomStringConvertible {
        case binaryNotFound([String])
        var description: String {
            switch self {
            case .binaryNotFound(let tried): "flagctl binary not found (run swift build first); tried: \(tried.joined(separator: ", "))"
            }
        }
    }

    /// The built `flagctl`: `$FLAGCTL_BINARY`, else next to the test bundle (the build products
    /// directory, whatever the triple and configuration), else `.build/debug` of this package.
    static func binary() throws -> URL {
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment["FLAGCTL_BINARY"] { candidates.append(URL(fileURLWithPath: override)) }
        if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent().appendingPathComponent("flagctl")) }
        if let first = CommandLine.arguments.first {
            var directory = URL(fileURLWithPath: first).deletingLastPathComponent()
            // On macOS the runner lives inside the .xctest bundle (Contents/MacOS).
            for _ in 0..<4 {
                candidates.append(directory.appendingPathComponent("flagctl"))
                directory = directory.deletingLastPathComponent()
            }
        }
        candidates.append(packageRoot.appendingPathComponent(".build/debug/flagctl"))
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw SupportError.binaryNotFound(candidates.map(\.path))
        }
        return found
    }

    /// Runs `flagctl` with `arguments` in `directory` (the package root by default), standard input
    /// from `/dev/null` unless `input` is given; outputs go to files, so no pipe can fill up and block.
    static func run(_ arguments: [String], in directory: URL? = nil, environment extra: [String: String] = [:], input: String? = nil,
                    executable: URL? = nil) throws -> Run {
        let scratch = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout")
        let errURL = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = try executable ?? binary()
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? packageRoot
        var environment = ["PATH": "/usr/bin:/bin"]
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let stdoutHandle = try FileHandle(forWritingTo: outURL)
        let stderrHandle = try FileHandle(forWritingTo: errURL)
        process.standardOutput = stdoutHandle
        process.standardError = stderrHandle
        if let input {
            let inURL = scratch.appendingPathComponent("stdin")
            try Data(input.utf8).write(to: inURL)
            process.standardInput = try FileHandle(forReadingFrom: inURL)
        } else {
            process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        }
        try process.run()
        process.waitUntilExit()
        try stdoutHandle.close()
        try stderrHandle.close()
        return Run(status: process.terminationStatus,
                   stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
                   stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// Runs `flagctl` with standard output on a pseudo-terminal, through util-linux `script(1)`
    /// (`-e`: its exit status is the command's), so the real `isatty` path is taken.
    static func runOnTerminal(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        let script = URL(fileURLWithPath: "/usr/bin/script")
        try #require(FileManager.default.isExecutableFile(atPath: script.path), "util-linux script(1) is needed for the terminal test")
        let quoted = ([try binary().path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
        return try run(["-qec", quoted.joined(separator: " "), "/dev/null"], environment: environment, executable: script)
    }

    /// A fresh directory under the system's temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("flagctl-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes `files` (name to content) into a fresh temp directory and returns it.
    static func directory(with files: [String: String]) throws -> URL {
        let directory = try temporaryDirectory()
        for (name, content) in files { try Data(content.utf8).write(to: directory.appendingPathComponent(name)) }
        return directory
    }

    /// A valid document that passes every lint rule, with room to vary one thing per test.
    static func cleanDocument(
        introMessage: String = "Symi ist aktuell für kurze Zeit kostenlos.",
        premium: String = #"{"type": "boolean", "default": false, "requires": {"monetizationEnabled": true}, "rules": [{"cohort": "internal", "value": true}]}"#,
        monetization: String = #"{"type": "boolean", "default": true}"#,
        legalLinks: String? = #"{"type": "json", "default": {"privacyPolicyURL": "https://symi.app/datenschutz", "termsOfUseURL": "https://symi.app/agb"}}"#
    ) -> String {
        var flags = [
            #""monetizationEnabled": \#(monetization)"#,
            #""premiumFeaturesLocked": \#(premium)"#,
            #""introOfferMessage": {"type": "string", "default": \#(JSONValue.string(introMessage)), "rules": [{"cohort": "english", "value": "Symi is free for a limited time."}]}"#,
        ]
        if let legalLinks { flags.append(#""legalLinks": \#(legalLinks)"#) }
        return """
        {"flags": {\(flags.joined(separator: ",\n"))},
         "cohorts": {"internal": {"installId": {"in": ["tester-1"]}}, "beta": {"channel": {"in": ["testflight"]}},
                     "nonEU": {"country": {"notIn": ["DE", "AT"]}},
                     "english": {"locale": {"startsWith": "en"}}}}
        """
    }

    /// Bytes of a file under the package root.
    static func bytes(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: packageRoot.appendingPathComponent(relativePath)))
    }
}

extension TestSupport {
    /// An RFC 3339 time `seconds` from now (UTC, milliseconds), for `--at`.
    static func time(in seconds: Double) -> String {
        RFC3339.string(milliseconds: Int64((Date().timeIntervalSince1970 + seconds) * 1000))
    }

    /// A usage error's message, as a thrown error.
    struct Refused: Error, Equatable {
        let message: String
    }

    /// The command line `arguments` parsed into `T` (`get()` throws the usage error's message).
    static func parse<T: Command>(_ type: T.Type, _ arguments: [String]) -> Result<T, Refused> {
        switch FlagCtl.parse([type.configuration.name] + arguments) {
        case .run(let command, _):
            guard let command = command as? T else { return .failure(Refused(message: "parsed as \(Swift.type(of: command))")) }
            return .success(command)
        case .usageError(let error): return .failure(Refused(message: error.message))
        case .help: return .failure(Refused(message: "help"))
        }
    }

    /// The usage error's message for `arguments`, nil when they parse.
    static func usageError<T: Command>(_ type: T.Type, _ arguments: [String]) -> String? {
        if case .failure(let refused) = parse(type, arguments) { return refused.message }
        return nil
    }
}
