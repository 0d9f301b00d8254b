import Foundation

/// A real HTTPS peer: `Fixtures/tls_server.py` (Python's `ssl`) with a certificate for IP 127.0.0.1
/// signed by `Fixtures/test-ca.pem`. Stopped by closing its stdin.
package final class TLSServer {
    /// The directory of the certificate fixtures.
    package static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    /// The CA that signed the server certificate.
    package static var caFile: String { fixtures.appendingPathComponent("test-ca.pem").path }

    private struct StartFailed: Error { var output: String }

    /// The port the server listens on.
    package let port: Int
    private let process = Process()
    private let input = Pipe()

    /// Starts the server and waits for it to report its port.
    package init() throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.fixtures.appendingPathComponent("tls_server.py").path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw StartFailed(output: text)
        }
        self.port = port
    }

    /// An https URL on this server with `host` (default the certificate's 127.0.0.1).
    package func url(host: String = "127.0.0.1") -> URL {
        URL(string: "https://\(host):\(port)/") ?? URL(fileURLWithPath: "/")
    }

    /// Stops the server and waits for it to exit.
    package func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
