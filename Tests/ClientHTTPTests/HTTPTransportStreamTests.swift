import Foundation
import Testing
@testable import ClientHTTP
import TransportTestSupport

/// The streaming half of the transport contract (`HTTPTransport.stream`), against both transports, over a
/// real socket on 127.0.0.1: pieces arrive as the server sends them, the consumer can stop, silence ends it.
@Suite struct HTTPTransportStreamTests {
    static let head = Array("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n".utf8)

    func transport(_ kind: TransportKind, silence: Duration = .seconds(5)) -> any HTTPTransport {
        kind.makeTransport(options: TransportOptions(connectTimeout: .seconds(2), totalTimeout: silence, maxResponseBodyBytes: 1024))
    }

    @Test(arguments: TransportKind.allCases)
    func piecesArriveAsSentAndTheBodyLimitDoesNotApply(_ kind: TransportKind) async throws {
        // 2,000 bytes (over the 1 KiB body limit of `send`) in 8 pieces 100 ms apart, then the server closes.
        let body = Array(String(repeating: "data: 0123456789abcdefghijklmnopqrstuvwxyz01234567\n\n", count: 40).utf8)
        let server = try FaultServer(.drip(head: Self.head, body: body, chunk: 250, interval: .milliseconds(100)))
        defer { server.stop() }
        let received = Locked<[(Data, ContinuousClock.Instant)]>([])
        let status = try await transport(kind).stream(ClientRequest(url: server.url("/events"))) { bytes in
            received.withLock { $0.append((Data(bytes), .now)) }
            return true
        }
        let end = ContinuousClock.now
        #expect(status == 200)
        let pieces = received.withLock { $0 }
        #expect(pieces.reduce(Data()) { $0 + $1.0 } == Data(body))
        // Streamed, not buffered to the end: the first piece came long before the last.
        let first = try #require(pieces.first?.1)
        #expect(end - first > .milliseconds(400))
    }

    @Test(arguments: TransportKind.allCases)
    func theConsumerStopsTheStreamAndGetsItsStatus(_ kind: TransportKind) async throws {
        let body = [UInt8](repeating: 0x3A, count: 200_000)  // 20 s at this pace
        let server = try FaultServer(.drip(head: Self.head, body: body, chunk: 100, interval: .milliseconds(10)))
        defer { server.stop() }
        let start = ContinuousClock.now
        let status = try await transport(kind).stream(ClientRequest(url: server.url("/events"))) { _ in false }
        #expect(status == 200)
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test(arguments: TransportKind.allCases)
    func aSilentStreamEndsAsTimedOut(_ kind: TransportKind) async throws {
        let server = try FaultServer(.drip(head: Self.head, body: Array("data: x\n\n".utf8), chunk: 3, interval: .seconds(4)))
        defer { server.stop() }
        let start = ContinuousClock.now
        do {
            _ = try await transport(kind, silence: .seconds(1)).stream(ClientRequest(url: server.url("/events"))) { _ in true }
            Issue.record("a stream silent for 4 s ended without an error")
        } catch {
            #expect(error.kind == .timedOut, "\(error)")
        }
        // timedOut above says the silence ended it: a stream that missed the silence would get a byte every 4 s and end
        // with the server, without an error. The time is only a safety net, ten times the 1 s of silence.
        #expect(ContinuousClock.now - start < .seconds(10))
    }
}
