import AppStoreNotifications
import AppStoreTestSupport
import Foundation
import Glibc
import Testing
@testable import FlagServerCLI

/// The Get Notification History client's URLs, messages and retries on a port nothing listens on (the exchange with a
/// stand-in of Apple's API runs in FlagServerProcessTests).
@Suite struct NotificationHistoryClientTests {
    @Test func aPageTokenIsPercentEncodedInTheQuery() throws {
        let first = try #require(NotificationHistoryClient.url("https://api.storekit.itunes.apple.com", paginationToken: nil))
        #expect(first.absoluteString == "https://api.storekit.itunes.apple.com/inApps/v1/notifications/history")
        let later = try #require(NotificationHistoryClient.url("http://127.0.0.1:8080", paginationToken: "a+b/c=d&e f"))
        #expect(later.absoluteString == "http://127.0.0.1:8080/inApps/v1/notifications/history?paginationToken=a%2Bb%2Fc%3Dd%26e%20f")
        #expect(NotificationHistoryClient.url("api.storekit.itunes.apple.com", paginationToken: nil) == nil)
        #expect(NotificationHistoryClient.url("ftp://host", paginationToken: nil) == nil)
    }

    @Test func anErrorBodyIsOneLine() {
        #expect(NotificationHistoryClient.describe(Array(#"{"errorCode": 4290000, "errorMessage": "Rate limit exceeded."}"#.utf8))
                == "4290000 Rate limit exceeded.")
        #expect(NotificationHistoryClient.describe(Array("Unauthenticated\n\nRequest ID: X.\n".utf8)) == "Unauthenticated Request ID: X.")
        #expect(NotificationHistoryClient.describe([]) == "empty body")
    }

    /// A port on 127.0.0.1 that nothing listens on (bound, then closed).
    static func closedPort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socket >= 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test func noAnswerIsTriedAgainThenReportedWithTheAttempts() async throws {
        let key = try AppStoreAPIKey(pem: Array(try AppStoreTestAPIKey().privateKeyPEM.utf8), keyID: "K")
        var client = NotificationHistoryClient(baseURL: "http://127.0.0.1:\(try Self.closedPort())/", key: key, issuerID: "I",
                                               bundleID: "app.symi.journal")
        client.retryBase = .milliseconds(10)
        client.attempts = 3
        do {
            _ = try await client.read(NotificationHistoryRequest(startDate: 0, endDate: 1), paginationToken: nil)
            Issue.record("a closed port answered")
        } catch {
            guard case .transport(_, let attempts) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(attempts == 3)
            #expect(error.description.hasPrefix("no answer from the App Store Server API after 3 attempts: connectionFailed"), "\(error)")
        }
    }
}
