import FlagKit
import Foundation
import TestSupport
import TransportTestSupport
@testable import FlagClient

/// A stand-in for flagserver's document endpoint on a ``FaultServer``: serves the current envelope with its ETag,
/// answers `304` to a matching `If-None-Match`, and can be told to misbehave for the next requests.
final class DocumentServer: @unchecked Sendable {
    /// What to do with one request instead of serving the current envelope.
    enum Fault: Sendable {
        /// These bytes, then close.
        case raw([UInt8])
        /// Read the request, never answer; return when the client hangs up.
        case neverAnswer
        /// `head` at once, then `body` one `chunk` at a time every `interval`, until done or the client hangs up.
        case drip(head: [UInt8], body: [UInt8], chunk: Int, interval: Duration)
    }

    private final class Script: @unchecked Sendable {
        let lock = NSLock()
        var current: (body: [UInt8], etag: String)?
        var faults: [Fault] = []
        /// Answers to `GET .../events`, one per connection; 404 once used up.
        var streams: [Fault] = []
        var ifNoneMatch: [String?] = []
    }

    private let script = Script()
    private let server: FaultServer

    /// Starts a server on 127.0.0.1 with no document (404) until ``publish(_:)``.
    init() throws {
        let script = self.script
        server = try FaultServer(.custom { fd, request in DocumentServer.respond(script, fd, request) })
    }

    /// The base URL for ``FlagClientConfiguration/baseURL``.
    var baseURL: URL { server.url("/") }

    /// Every request received, in order.
    var requests: [String] { server.requests }

    /// The `If-None-Match` value of each request (nil when absent), in order.
    var ifNoneMatchSeen: [String?] { script.lock.withLock { script.ifNoneMatch } }

    /// Makes `envelope` (bytes and ETag from ``Envelopes``) the current answer.
    func publish(_ envelope: (body: [UInt8], etag: String)) {
        script.lock.withLock { script.current = envelope }
    }

    /// Queues faults for the next requests, one each, before the current envelope is served again.
    func fail(_ faults: Fault...) {
        script.lock.withLock { script.faults += faults }
    }

    /// Queues answers for the next event-stream connections, one each (404 after them).
    func stream(_ faults: Fault...) {
        script.lock.withLock { script.streams += faults }
    }

    /// Document requests received (event-stream connections not counted).
    var documentRequests: Int { requests.filter { !$0.contains("/events ") }.count }

    /// Event-stream connections received.
    var streamRequests: [String] { requests.filter { $0.contains("/events ") } }

    /// Stops the server.
    func stop() { server.stop() }

    private static func respond(_ script: Script, _ fd: Int32, _ request: [UInt8]) {
        let head = String(decoding: request, as: UTF8.self)
        if head.hasPrefix("GET "), head.split(separator: "\r\n").first?.contains("/events ") == true {
            let answer = script.lock.withLock { script.streams.isEmpty ? nil : script.streams.removeFirst() }
            serve(answer ?? .raw(FaultServer.response(status: 404)), fd)
            return
        }
        let tag = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("if-none-match:") }
            .map { String($0.dropFirst("if-none-match:".count)).trimmingCharacters(in: .whitespaces) }
        let (fault, current) = script.lock.withLock { () -> (Fault?, (body: [UInt8], etag: String)?) in
            script.ifNoneMatch.append(tag)
            return (script.faults.isEmpty ? nil : script.faults.removeFirst(), script.current)
        }
        if let fault {
            serve(fault, fd)
            return
        }
        guard let current else {
            Socket.write(fd, FaultServer.response(status: 404, body: "{\"error\":{\"code\":\"not_found\",\"message\":\"no document\"}}"))
            return
        }
        if tag == current.etag {
            Socket.write(fd, FaultServer.response(status: 304, headers: [("ETag", current.etag)]))
        } else {
            Socket.write(fd, Array(responseHead(current.etag, length: current.body.count).utf8) + current.body)
        }
    }

    private static func serve(_ fault: Fault, _ fd: Int32) {
        switch fault {
        case .raw(let bytes):
            Socket.write(fd, bytes)
        case .neverAnswer:
            waitForHangUp(fd)
        case .drip(let head, let body, let chunk, let interval):
            guard Socket.write(fd, head) else { return }
            var offset = 0
            while offset < body.count {
                Thread.sleep(forTimeInterval: Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18)
                let end = min(body.count, offset + max(1, chunk))
                guard Socket.write(fd, Array(body[offset..<end])) else { return }
                offset = end
            }
        }
    }

    /// A `200` head like flagserver's.
    static func responseHead(_ etag: String, length: Int) -> String {
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nETag: \(etag)\r\n"
            + "Cache-Control: public, max-age=5\r\nContent-Length: \(length)\r\nConnection: close\r\n\r\n"
    }

    /// Blocks until the peer closes the connection (curl gave up) or 150 s passed.
    private static func waitForHangUp(_ fd: Int32) {
        for _ in 0..<7500 {
            guard Socket.waitReadable(fd, milliseconds: 20) else { continue }
            if Socket.read(fd).isEmpty { return }
        }
    }
}

/// Envelopes as flagserver encodes them: canonical JSON plus a newline, `ETag: "<version>-<16 hex>"`.
enum Envelopes {
    /// The repository root (for `flags/*.json`).
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `flags/<name>.json` as text.
    static func flagsFile(_ name: String) throws -> String {
        try String(contentsOf: repositoryRoot.appendingPathComponent("flags/\(name).json"), encoding: .utf8)
    }

    /// `flags/production.json`, decoded.
    static func production() throws -> FlagDocument {
        try FlagDocument.decode(flagsFile("production"))
    }

    /// Production with `premiumFeaturesLocked` true for everyone (the paid launch).
    static func locked() throws -> FlagDocument {
        try modified(production()) { flags in
            flags["premiumFeaturesLocked"] = ["type": "boolean", "default": true, "requires": ["monetizationEnabled": true]]
        }
    }

    /// `document` with its flags changed by `change`.
    static func modified(_ document: FlagDocument, _ change: (inout [String: JSONValue]) -> Void) throws -> FlagDocument {
        try document.modified(change)
    }

    /// The envelope bytes and ETag of `document` as version `version` of `environment`.
    static func make(_ document: FlagDocument, version: Int, environment: String = "production",
                     extra: [String: JSONValue] = [:]) -> (body: [UInt8], etag: String) {
        var object: [String: JSONValue] = [
            "author": "test", "contentHash": .string(document.contentHash), "document": document.jsonValue,
            "environment": .string(environment), "message": "published by a test",
            "publishedAt": "2026-11-29T15:30:00.123Z", "version": .integer(Int64(version)),
        ]
        for (key, value) in extra { object[key] = value }
        return (JSONValue.object(object).canonicalBytes + [0x0A], "\"\(version)-\(document.contentHash.prefix(16))\"")
    }
}
