import AppStoreNotifications
import Foundation
import Testing

/// Get Notification History's request and response bodies as Apple documents them (`NotificationHistoryRequest`,
/// `NotificationHistoryResponse`, the error body).
@Suite struct NotificationHistoryResponseTests {
    @Test func theRequestIsTheSpanInMilliseconds() throws {
        let body = NotificationHistoryRequest(startDate: 1_796_000_000_000, endDate: 1_796_086_400_000).body()
        #expect(String(decoding: body, as: UTF8.self) == #"{"endDate":1796086400000,"startDate":1796000000000}"#)
        #expect(NotificationHistoryRequest.path == "/inApps/v1/notifications/history")
    }

    @Test func aPageDecodesWithItsAttemptsAndToken() throws {
        let body = """
            {"notificationHistory": [
                {"sendAttempts": [{"attemptDate": 1796000001000, "sendAttemptResult": "TIMED_OUT"},
                                  {"attemptDate": 1796003601000, "sendAttemptResult": "SUCCESS"}],
                 "signedPayload": "eyJhbGciOiJFUzI1NiJ9.e30.c2ln"},
                {"signedPayload": "a.b.c", "somethingNew": true}],
             "hasMore": true, "paginationToken": "57a7a2f3-55e6-4ab1-8d1c-95f5f0a5c1a3", "futureMember": [1, 2]}
            """
        let page = try NotificationHistoryResponse.decode(Array(body.utf8))
        #expect(page == NotificationHistoryResponse(
            notificationHistory: [
                .init(signedPayload: "eyJhbGciOiJFUzI1NiJ9.e30.c2ln",
                      sendAttempts: [.init(attemptDate: 1_796_000_001_000, sendAttemptResult: "TIMED_OUT"),
                                     .init(attemptDate: 1_796_003_601_000, sendAttemptResult: "SUCCESS")]),
                .init(signedPayload: "a.b.c"),
            ],
            hasMore: true, paginationToken: "57a7a2f3-55e6-4ab1-8d1c-95f5f0a5c1a3"))
        let last = try NotificationHistoryResponse.decode(Array(#"{"notificationHistory": [], "hasMore": false}"#.utf8))
        #expect(last == NotificationHistoryResponse(notificationHistory: [], hasMore: false, paginationToken: nil))
    }

    @Test func whatIsNotAPageIsRefusedWithThePath() throws {
        let cases = [
            ("", "invalid_response: not a NotificationHistoryResponse"),
            (#"{"hasMore": false}"#, "notificationHistory: missing"),
            (#"{"notificationHistory": [{"sendAttempts": []}], "hasMore": false}"#, "notificationHistory[0].signedPayload: missing"),
            (#"{"notificationHistory": [], "hasMore": "no"}"#, "hasMore: expected Bool"),
            (#"{"notificationHistory": [], "hasMore": true}"#, "hasMore is true but there is no paginationToken"),
            (#"{"notificationHistory": [], "hasMore": true, "paginationToken": ""}"#, "hasMore is true but there is no paginationToken"),
        ]
        for (body, message) in cases {
            do {
                _ = try NotificationHistoryResponse.decode(Array(body.utf8))
                Issue.record("accepted \(body)")
            } catch {
                #expect(error.reason == .invalidResponse)
                #expect(error.description.contains(message), "\(body): \(error)")
            }
        }
    }

    @Test func applesErrorBodyIsSummarized() {
        let error = AppStoreAPIErrorBody.decode(Array(#"{"errorCode": 4000006, "errorMessage": "Invalid request revision."}"#.utf8))
        #expect(error?.summary == "4000006 Invalid request revision.")
        #expect(AppStoreAPIErrorBody.decode(Array("<html>".utf8)) == nil)
        #expect(AppStoreAPIErrorBody.decode(Array("{}".utf8)) == nil)
    }
}
