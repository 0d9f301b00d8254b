import FlagKit
import Foundation
import Testing
@testable import FlagStore

/// `kill -9` in the middle of a stream of publishes: every acknowledged version must survive.
@Suite struct CrashRecoveryTests {
    /// The helper executable, built next to the test bundle by `swift build --build-tests`.
    static func helperPath() throws -> String {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        // The test runner may live inside a bundle directory (…/X.xctest/…); walk up to the build dir.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("flagstore-crash-helper").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw FlagStoreError.invalidArgument(name: "helper", reason: "flagstore-crash-helper not found near \(executable)")
    }

    /// Runs the helper until it has acknowledged at least `minimum` versions, kills it with SIGKILL, and
    /// returns every (number, hash) it printed as a complete line.
    static func runAndKill(database: String, minimum: Int) throws -> [(number: Int, hash: String)] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try helperPath())
        process.arguments = [database]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var buffer = Data()
        let reader = output.fileHandleForReading
        let deadline = Date().addingTimeInterval(60)
        while buffer.filter({ $0 == UInt8(ascii: "\n") }).count < minimum && Date() < deadline && process.isRunning {
            buffer.append(reader.availableData)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        buffer.append(reader.readDataToEndOfFile())
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
        // Only complete lines were acknowledged; a trailing fragment was not.
        var text = String(decoding: buffer, as: UTF8.self)
        if !text.hasSuffix("\n"), let lastNewline = text.lastIndex(of: "\n") { text = String(text[...lastNewline]) }
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let number = Int(parts[0]) else { return nil }
            return (number, String(parts[1]))
        }
    }

    @Test func everyAcknowledgedVersionSurvivesSIGKILL() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("data/flags.sqlite")
        var acknowledged: [(number: Int, hash: String)] = []
        for _ in 0..<3 {
            acknowledged += try Self.runAndKill(database: path, minimum: acknowledged.count + 40)
        }
        try #require(acknowledged.count >= 120)
        let store = try FlagStore.open(path: path)
        #expect(try store.integrityCheck() == ["ok"])
        for (number, hash) in acknowledged {
            let record = try store.version(environment: "production", number: number)
            #expect(record.contentHash == hash)
            #expect(SHA256.hexDigest(record.document) == hash, "version \(number) is half-written")
        }
        // Nothing half-written or missing in between: numbers are contiguous up to the newest.
        let newest = try #require(try store.currentVersion(environment: "production"))
        #expect(newest.number >= acknowledged.map(\.number).max() ?? 0)
        var all: [VersionRecord] = []
        var before: Int? = nil
        while true {
            let page = try store.versions(environment: "production", limit: 1000, before: before)
            guard let last = page.last else { break }
            all += page
            before = last.number
        }
        #expect(all.map(\.number) == Array((1...newest.number).reversed()))
        #expect(all.allSatisfy { SHA256.hexDigest($0.document) == $0.contentHash })
    }
}
