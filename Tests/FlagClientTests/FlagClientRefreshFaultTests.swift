import FlagKit
import Foundation
import SymiSchema
import TestSupport
import Testing
import TransportTestSupport
@testable import FlagClient

/// Every way a refresh can go wrong, with real libcurl against a misbehaving server on 127.0.0.1. Each keeps the
/// previous values, and none makes `premiumFeaturesLocked` true: every bad answer carries a LOCKED document.
@Suite struct FlagClientRefreshFaultTests {
    /// Short timeouts so that "never answers" and "slow drip" fail fast; 64 KiB of body.
    static let options = TransportOptions(connectTimeout: .seconds(1), totalTimeout: .milliseconds(1500),
                                          maxResponseBodyBytes: 64 << 10)

    enum Fault: String, CaseIterable, Sendable {
        case neverAnswers, serverError, notFound, tooManyRequests, notHTTP, htmlInsteadOfJSON, truncatedBody,
             announcedBodyOverLimit, chunkedBodyOverLimit, slowDrip, jsonNotAnEnvelope, bareDocumentWithoutEnvelope,
             invalidDocument, contentHashMismatch, olderVersion, wrongEnvironment, emptyBody

        /// What the server does instead of serving the current document.
        func fault() throws -> DocumentServer.Fault {
            let locked = try Envelopes.locked()
            let lockedV9 = Envelopes.make(locked, version: 9)
            func ok(_ body: [UInt8]) -> DocumentServer.Fault { .raw(Array(DocumentServer.responseHead("\"x\"", length: body.count).utf8) + body) }
            switch self {
            case .neverAnswers: return .neverAnswer
            case .serverError: return .raw(FaultServer.response(status: 500, body: "{\"error\":{\"code\":\"internal\"}}"))
            case .notFound: return .raw(FaultServer.response(status: 404, body: "{\"error\":{\"code\":\"not_found\"}}"))
            case .tooManyRequests: return .raw(FaultServer.response(status: 429, headers: [("Retry-After", "120")]))
            case .notHTTP: return .raw(Array("SSH-2.0-OpenSSH_9.2\r\n".utf8))
            case .htmlInsteadOfJSON: return ok(Array("<html><body>Captive portal</body></html>".utf8))
            case .truncatedBody:
                return .raw(Array(DocumentServer.responseHead("\"9-x\"", length: lockedV9.body.count).utf8) + lockedV9.body.prefix(200))
            case .announcedBodyOverLimit:
                return .raw(Array(DocumentServer.responseHead("\"9-x\"", length: 100_000).utf8) + Array(repeating: 0x20, count: 100_000))
            case .chunkedBodyOverLimit:
                let chunk = String(repeating: " ", count: 8192)
                let body = String(repeating: "2000\r\n\(chunk)\r\n", count: 10) + "0\r\n\r\n"
                return .raw(Array(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + body).utf8))
            case .slowDrip:
                return .drip(head: Array(DocumentServer.responseHead("\"9-x\"", length: lockedV9.body.count).utf8),
                             body: lockedV9.body, chunk: 1, interval: .milliseconds(100))
            case .jsonNotAnEnvelope: return ok(Array("{\"hello\": [1, 2, 3]}".utf8))
            case .bareDocumentWithoutEnvelope: return ok(locked.canonicalBytes)
            case .invalidDocument:
                let text = String(decoding: lockedV9.body, as: UTF8.self)
                    .replacingOccurrences(of: "\"default\":true,\"requires\"", with: "\"default\":\"yes\",\"requires\"")
                return ok(Array(text.utf8))
            case .contentHashMismatch:
                return ok(Envelopes.make(locked, version: 9, extra: ["contentHash": .string(String(repeating: "ab", count: 32))]).body)
            case .olderVersion: return ok(Envelopes.make(locked, version: 4).body)
            case .wrongEnvironment: return ok(Envelopes.make(locked, version: 9, environment: "staging").body)
            case .emptyBody: return ok([])
            }
        }

        /// Whether `error` is the cause this fault must be reported as.
        func matches(_ error: RefreshError) -> Bool {
            switch (self, error) {
            case (.neverAnswers, .transport(let e)), (.slowDrip, .transport(let e)): e.kind == .timedOut
            case (.serverError, .httpStatus(500, _, let body)): body.contains("internal")
            case (.notFound, .httpStatus(404, _, _)): true
            case (.tooManyRequests, .httpStatus(429, "120", _)): true
            case (.notHTTP, .transport(let e)): e.kind == .invalidResponse
            case (.truncatedBody, .transport(let e)): e.kind == .truncatedBody
            case (.announcedBodyOverLimit, .transport(let e)), (.chunkedBodyOverLimit, .transport(let e)):
                e.kind == .bodyTooLarge(limit: 64 << 10)
            case (.htmlInsteadOfJSON, .invalidEnvelope(.malformedJSON)), (.emptyBody, .invalidEnvelope(.malformedJSON)): true
            case (.jsonNotAnEnvelope, .invalidEnvelope(.notAnEnvelope(path: "/environment", _))): true
            case (.bareDocumentWithoutEnvelope, .invalidEnvelope(.notAnEnvelope(path: "/environment", _))): true
            case (.invalidDocument, .invalidEnvelope(.invalidDocument(let issues))):
                issues.contains { $0.path == "/document/flags/premiumFeaturesLocked/default" }
            case (.contentHashMismatch, .invalidEnvelope(.contentHashMismatch)): true
            case (.olderVersion, .olderVersion(received: 4, current: 5)): true
            case (.wrongEnvironment, .environmentMismatch(expected: "production", received: "staging")): true
            default: false
            }
        }
    }

    @Test(arguments: Fault.allCases)
    func faultKeepsTheCachedValues(fault: Fault) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        defer { server.stop() }
        let good = Envelopes.make(try Envelopes.production(), version: 5)
        server.publish(good)
        let client = TestClients.make(server, directory, options: Self.options)
        #expect(await client.refresh() == .updated(version: 5, previousVersion: nil, cacheError: nil))
        let before = client.snapshot
        let cacheBefore = try Data(contentsOf: directory.url.appendingPathComponent("production.flagcache"))

        server.fail(try fault.fault())
        let outcome = await client.refresh(force: true)
        let error = try #require(outcome.error, "\(fault): expected a failure, got \(outcome)")
        #expect(fault.matches(error), "\(fault): \(error)")
        #expect(client.snapshot === before, "\(fault): the values are untouched")
        #expect(client.symi.premiumFeaturesLocked == false)
        #expect(client.symi.isAvailable("pdfExport", entitled: false))
        #expect(try Data(contentsOf: directory.url.appendingPathComponent("production.flagcache")) == cacheBefore)
        // A new launch after the failure still starts from the good cache.
        #expect(TestClients.make(server, directory).launchReport.cache == .loaded(version: 5))

        // Once the server behaves again the client recovers (a forced refresh skips the backoff, not Retry-After).
        let next = await client.refresh(force: true)
        if fault == .tooManyRequests {
            guard case .skipped(let until, .retryAfter) = next else {
                Issue.record("expected Retry-After to hold the next refresh, got \(next)")
                return
            }
            #expect(until.timeIntervalSinceNow > 100 && until.timeIntervalSinceNow <= 121)
            #expect(server.requests.count == 2, "the waiting refresh sent nothing")
        } else {
            #expect(next == .notModified(version: 5, cacheError: nil), "\(fault)")
        }
    }

    @Test(arguments: Fault.allCases)
    func faultOnFirstLaunchKeepsTheSafeDefaults(fault: Fault) async throws {
        guard fault != .olderVersion else { return }  // nothing to be older than: a valid v4 would be taken
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        defer { server.stop() }
        server.fail(try fault.fault())
        let client = TestClients.make(server, directory, options: Self.options)
        let outcome = await client.refresh()
        #expect(outcome.error != nil, "\(fault): \(outcome)")
        #expect(client.source == .safeDefaults)
        #expect(client.symi.premiumFeaturesLocked == false)
        #expect(client.symi.subscriptionScreenCopy == SymiSafeDefaults.subscriptionScreenCopy)
        #expect(!directory.entries().contains("production.flagcache"), "nothing bad is cached")
    }

    @Test func connectionRefusedKeepsValuesAndBacksOff() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (fd, port) = try Socket.boundNotListening()
        defer { Socket.close(fd) }
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/"))
        let client = FlagClient(configuration: TestClients.configuration(url, directory.url, options: Self.options))
        let outcome = await client.refresh()
        guard case .failed(.transport(let error)) = outcome else {
            Issue.record("expected a transport failure, got \(outcome)")
            return
        }
        #expect(error.kind == .connectionFailed)
        #expect(client.source == .safeDefaults)
        // Unforced, the next refresh waits (minimum interval and backoff both apply; the later one is reported).
        guard case .skipped = await client.refresh() else {
            Issue.record("expected the next unforced refresh to wait")
            return
        }
    }

    @Test func unexpectedNotModifiedWithoutACachedDocumentIsAFailure() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        defer { server.stop() }
        server.fail(.raw(FaultServer.response(status: 304)))
        let client = TestClients.make(server, directory)
        #expect(await client.refresh() == .failed(.unexpectedNotModified))
        #expect(client.source == .safeDefaults)
    }

    @Test func serviceUnavailableWithAnHTTPDateRetryAfterHoldsEvenForcedRefreshes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        defer { server.stop() }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let later = formatter.string(from: Date().addingTimeInterval(600))
        server.fail(.raw(FaultServer.response(status: 503, headers: [("Retry-After", later)])))
        let client = TestClients.make(server, directory)
        #expect(await client.refresh().error != nil)
        guard case .skipped(let until, .retryAfter) = await client.refresh(force: true) else {
            Issue.record("expected Retry-After to hold")
            return
        }
        #expect(until.timeIntervalSinceNow > 500 && until.timeIntervalSinceNow <= 601)
        #expect(server.requests.count == 1)
    }

    // MARK: Validators (issue: a bad validator can keep an unlock from ever arriving)

    /// Installs a locked v1 through a 200 whose ETag header is `header`, then publishes the unlock as v2: the next
    /// refresh must bring v2, whatever the header held. Returns the If-None-Match values the server saw.
    func unlockArrivesAfterAValidator(_ header: String) async throws -> [String?] {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        defer { server.stop() }
        let lockedV1 = Envelopes.make(try Envelopes.locked(), version: 1)
        server.fail(.raw(Array(DocumentServer.responseHead(header, length: lockedV1.body.count).utf8) + lockedV1.body))
        let client = TestClients.make(server, directory)
        #expect(await client.refresh(force: true) == .updated(version: 1, previousVersion: nil, cacheError: nil))
        #expect(client.symi.premiumFeaturesLocked == true)
        server.publish(Envelopes.make(try Envelopes.production(), version: 2))
        #expect(await client.refresh(force: true) == .updated(version: 2, previousVersion: 1, cacheError: nil))
        #expect(client.symi.premiumFeaturesLocked == false)
        // A second launch from the cache sends the tag of the cached envelope, not a stored header.
        let relaunched = TestClients.make(server, directory)
        #expect(await relaunched.refresh(force: true) == .notModified(version: 2, cacheError: nil))
        return server.ifNoneMatchSeen
    }

    /// A CDN that mixes headers and bodies: the locked v1 arrives under v2's tag, so sending that tag back would
    /// make the server confirm "v2" with a 304 forever while the app stays on the locked v1.
    @Test func anETagOfAnotherVersionIsNotSentBack() async throws {
        let unlocked = try Envelopes.production()
        let v2Tag = "\"2-\(unlocked.contentHash.prefix(16))\""
        let seen = try await unlockArrivesAfterAValidator(v2Tag)
        let lockedTag = Envelopes.make(try Envelopes.locked(), version: 1).etag
        #expect(seen == [nil, lockedTag, v2Tag])
    }

    /// The bad validators, by name (a 20 KB argument would fill the test log).
    enum BadETag: String, CaseIterable, Sendable {
        case controlCharacter, twentyKilobytes, weak, empty
        var header: String {
            switch self {
            case .controlCharacter: "\"1-abc\u{1}def\""
            case .twentyKilobytes: String(repeating: "e", count: 20_000)
            case .weak: "W/\"weak\""
            case .empty: ""
            }
        }
    }

    @Test(arguments: BadETag.allCases)
    func anUnsendableOrOversizedETagDoesNotStick(_ bad: BadETag) async throws {
        let header = bad.header
        let seen = try await unlockArrivesAfterAValidator(header)
        #expect(seen.count == 3)
        #expect(seen.allSatisfy { $0 == nil || ($0?.utf8.count ?? 0) < 64 })
        #expect(!seen.contains(header))
    }

    /// An intermediary that refuses the conditional request (431, 400, 412) must not strand the install: the
    /// client asks again at once without `If-None-Match`.
    @Test(arguments: [431, 400, 412])
    func aRefusedConditionalRequestIsRetriedUnconditionally(_ status: Int) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        defer { server.stop() }
        server.publish(Envelopes.make(try Envelopes.locked(), version: 1))
        let client = TestClients.make(server, directory)
        #expect(await client.refresh(force: true) == .updated(version: 1, previousVersion: nil, cacheError: nil))
        server.publish(Envelopes.make(try Envelopes.production(), version: 2))
        server.fail(.raw(FaultServer.response(status: status, body: "{\"error\":{}}")))
        #expect(await client.refresh(force: true) == .updated(version: 2, previousVersion: 1, cacheError: nil))
        #expect(client.symi.premiumFeaturesLocked == false)
        #expect(server.ifNoneMatchSeen.count == 3)
        #expect(server.ifNoneMatchSeen.last == .some(nil))
    }

    /// Not every refusal is about the validator: 404 and 429 are not retried (429 asks to wait).
    @Test(arguments: [404, 429, 401])
    func otherRefusalsAreNotRetried(_ status: Int) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try DocumentServer()
        defer { server.stop() }
        server.publish(Envelopes.make(try Envelopes.production(), version: 1))
        let client = TestClients.make(server, directory)
        _ = await client.refresh(force: true)
        server.fail(.raw(FaultServer.response(status: status, headers: [("Retry-After", "1")])))
        guard case .failed(.httpStatus(status, _, _)) = await client.refresh(force: true) else {
            Issue.record("expected the \(status) to be the outcome")
            return
        }
        #expect(server.ifNoneMatchSeen.count == 2)
    }
}
