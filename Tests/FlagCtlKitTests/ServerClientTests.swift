import ClientHTTP
import FlagKit
import Foundation
import Glibc
import Testing
@testable import FlagCtlKit

/// The client's pieces that need no server, and its error lines.
@Suite struct ServerClientTests {
    @Test func urlsEncodeEachSegment() throws {
        let client = ServerClient(baseURL: try #require(URL(string: "http://127.0.0.1:9/api/")), token: nil)
        #expect(try client.url(["v1", "environments", "production", "flags", "a/b?c d"]).absoluteString
            == "http://127.0.0.1:9/api/v1/environments/production/flags/a%2Fb%3Fc%20d")
        #expect(try client.url(["v1"], query: "limit=5").absoluteString == "http://127.0.0.1:9/api/v1?limit=5")
    }

    @Test func messagesArePercentEncodedSoTheServerDecodesThemExactly() {
        #expect(ChangeMessage.encode("Preis 50% runter") == "Preis 50%25 runter")
        #expect(ChangeMessage.encode("für") == "f%C3%BCr")
        #expect(ChangeMessage.encode("a\nb") == "a%0Ab")
    }

    @Test func versionOfETag() {
        #expect(ServerClient.versionOfETag("\"12-3fa9c1e0b2d4a6f8\"") == 12)
        #expect(ServerClient.versionOfETag("W/\"7-00\"") == 7)
        #expect(ServerClient.versionOfETag("garbage") == nil)
    }

    @Test func refusalsReadTheErrorJSONOrKeepTheText() {
        let json = Data(#"{"error": {"code": "invalid_document", "message": "the document has 1 problem", "details": [{"path": "/flags/x", "message": "bad"}]}}"#.utf8)
        let refusal = ServerRefusal(method: "PUT", url: "http://h/d", status: 422, body: json, sentToken: true)
        #expect(refusal.description == "PUT http://h/d: 422 invalid_document: the document has 1 problem\n  /flags/x: bad")
        let proxy = ServerRefusal(method: "GET", url: "http://h/d", status: 502, body: Data("<html>Bad\nGateway</html>".utf8), sentToken: false)
        #expect(proxy.description == "GET http://h/d: 502 http_502: <html>Bad Gateway</html>")
    }

    /// Each 403 gets the advice that fits its code: the second-person rules are about the person, not the role.
    @Test func forbiddenAdviceFollowsTheCode() {
        func line(_ code: String) -> String {
            let body = Data(#"{"error": {"code": "\#(code)", "message": "no"}}"#.utf8)
            return ServerRefusal(method: "POST", url: "http://h/x", status: 403, body: body, sentToken: true).description
        }
        #expect(line("forbidden") == "POST http://h/x: 403 forbidden: no (FLAGCTL_TOKEN's role is not allowed to do this)")
        #expect(line("self_approval") == "POST http://h/x: 403 self_approval: no (another person's token must approve it)")
        #expect(line("self_override") == "POST http://h/x: 403 self_override: no (another person's token must override it)")
        #expect(line("environment_not_allowed") == "POST http://h/x: 403 environment_not_allowed: no (FLAGCTL_TOKEN is limited to other environments)")
        #expect(line("something_new") == "POST http://h/x: 403 something_new: no")
    }

    @Test func conflictLine() {
        #expect(ServerError.conflict(environment: "production", currentVersion: 8, basedOn: 7).description
            == "someone else published production version 8 meanwhile (this change was based on version 7): nothing was changed; run the command again to see the new diff")
        #expect(ServerError.conflict(environment: "production", currentVersion: nil, basedOn: nil).description
            == "production changed on the server meanwhile: nothing was changed; run the command again to see the new diff")
    }

    /// More callers blocking pool threads at once than the pool has threads: each waits for a task that must
    /// still run. On the pool itself they would all wait forever (the hang this test was written for).
    /// Task executors exist from macOS 15 (everywhere on Linux); before, `blocking` uses the pool and this hangs.
    static var taskExecutorsAvailable: Bool {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) { true } else { false }
    }

    @Test(.enabled(if: taskExecutorsAvailable), .timeLimit(.minutes(1)))
    func blockingCallersOnEveryPoolThreadStillFinish() async {
        let callers = ProcessInfo.processInfo.activeProcessorCount * 2 + 2
        let results = await withTaskGroup(of: Int.self) { group in
            for caller in 0..<callers {
                group.addTask {
                    BlockingExchange.run { () async -> Int in
                        await Task.yield()
                        return caller
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.sorted() == Array(0..<callers))
    }

    @Test func timeoutIsOneLine() throws {
        // A socket that listens but never accepts: the kernel completes the handshake, nobody answers,
        // and the total timeout fires; reported as one line.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound && listen(fd, 8) == 0)
        let port = UInt16(bigEndian: address.sin_port)
        let client = ServerClient(baseURL: try #require(URL(string: "http://127.0.0.1:\(port)")), token: nil,
                                  options: TransportOptions(connectTimeout: .seconds(5), totalTimeout: .milliseconds(300)))
        do {
            _ = try client.current("production")
            Issue.record("no error")
        } catch {
            #expect(!error.description.contains("\n"))
            #expect(error.description.hasPrefix("cannot reach the server at http://127.0.0.1:\(port): "))
            #expect(error.description.hasSuffix("(timedOut, CURLcode 28)"))
        }
    }
}
