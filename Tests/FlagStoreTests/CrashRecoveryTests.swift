import FlagKit
import Foundation
import TestSupport
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
        let store = try FlagStore.open(location: path)
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

    /// Runs the helper with `arguments` until it printed `lines` complete lines (or exited), kills it with SIGKILL
    /// after `delay`, and returns every complete line it printed.
    static func runAndKill(_ arguments: [String], lines: Int, delay: Duration = .zero) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try helperPath())
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var buffer = Data()
        let reader = output.fileHandleForReading
        let deadline = Date().addingTimeInterval(60)
        while buffer.filter({ $0 == UInt8(ascii: "\n") }).count < lines && Date() < deadline && process.isRunning {
            buffer.append(reader.availableData)
        }
        if delay > .zero { Thread.sleep(forTimeInterval: Double(delay.components.attoseconds) / 1e18) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        buffer.append(reader.readDataToEndOfFile())
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
        var text = String(decoding: buffer, as: UTF8.self)
        if !text.hasSuffix("\n"), let lastNewline = text.lastIndex(of: "\n") { text = String(text[...lastNewline]) }
        if !text.contains("\n") { text = "" }
        return text.split(separator: "\n").map(String.init)
    }

    /// The helper's document for change `id` (`flagstore-crash-helper`'s `document`).
    static func helperDocument(_ id: Int64) -> [UInt8] {
        let padding = String(repeating: "x", count: 1000)
        return Array("{\"flags\":{\"n\":{\"type\":\"integer\",\"default\":\(id)}},\"padding\":\"\(padding)\"}".utf8)
    }

    /// Killed after the approval committed and before `applyChange`: the change is still `approved` with no new
    /// version; applying it after the restart publishes exactly one version, and never a second.
    @Test func killedBetweenApprovalAndApplyTheChangeIsStillOwed() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("data/flags.sqlite")
        let lines = try Self.runAndKill(["approve-then-wait", path], lines: 1)
        let id = try #require(lines.first.flatMap { $0.hasPrefix("approved ") ? Int64($0.dropFirst(9)) : nil }, "\(lines)")
        let store = try FlagStore.open(location: path)
        #expect(try store.change(id: id).status == .approved)
        #expect(try store.currentVersion(environment: "production") == nil)
        #expect(try store.dueChanges(now: 0).map(\.id) == [id], "owed at once after a restart")
        let applied = try store.applyChange(id: id, document: Self.helperDocument(id), expectedCurrentVersion: 0)
        #expect(applied.record.status == .applied && applied.record.appliedVersion == 1)
        #expect(try store.applyChange(id: id, document: Self.helperDocument(id + 1), expectedCurrentVersion: 1)
            == .notApplicable(applied.record))
        #expect(try store.versions(environment: "production").count == 1)
    }

    /// Killed at random points of a loop of approve-then-apply (also inside `applyChange`'s transaction), then
    /// restarted, several times: after each reopen every change is `applied` with exactly its one version, or
    /// still `approved` (or `pending`) with none; never a version without its change marked, or the reverse.
    @Test func killedDuringApplyNeitherHalfIsEverAloneOnDisk() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("data/flags.sqlite")
        var acknowledged: [Int64: Int] = [:]
        // The delay spreads the kill over a whole iteration (about four fsyncs on a disk), so that over the rounds
        // some land inside applyChange's commit and some between an approval and its apply.
        for round in 0..<12 {
            let lines = try Self.runAndKill(["apply-loop", path], lines: Int.random(in: 2...20),
                                            delay: .microseconds(Int.random(in: 0...15_000)))
            for line in lines where line.hasPrefix("applied ") {
                let parts = line.split(separator: " ")
                if parts.count == 3, let id = Int64(parts[1]), let version = Int(parts[2]) { acknowledged[id] = version }
            }
            let store = try FlagStore.open(location: path)
            defer { store.close() }
            #expect(try store.integrityCheck() == ["ok"])
            let changes = try store.changes(query: ChangeQuery(environment: "production", limit: 1000))
            let versions = try store.versions(environment: "production", limit: 1000)
            let applied = changes.filter { $0.status == .applied }
            #expect(versions.count == applied.count, "round \(round): \(versions.count) versions, \(applied.count) applied")
            #expect(Set(applied.compactMap(\.appliedVersion)) == Set(versions.map(\.number)))
            // Booleans first: a failed #expect on the documents themselves would print kilobytes of bytes.
            for change in applied {
                let version = try store.version(environment: "production", number: try #require(change.appliedVersion))
                let itsOwn = version.document == Self.helperDocument(change.id)
                #expect(itsOwn, "round \(round): change \(change.id) marked with another change's version")
            }
            let documents = Set(versions.map(\.document))
            for change in changes where change.status != .applied {
                let published = documents.contains(Self.helperDocument(change.id))
                #expect([.approved, .pending].contains(change.status))
                #expect(!published, "round \(round): change \(change.id) published but not marked applied")
            }
            for (id, version) in acknowledged {
                #expect(try store.change(id: id).appliedVersion == version, "acknowledged change \(id) lost")
            }
        }
        #expect(acknowledged.count >= 12)
    }
}
