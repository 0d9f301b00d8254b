import Foundation

/// One page of Get Notification History, as Apple documents `NotificationHistoryResponse`: the notifications as
/// Apple sent (or tried to send) them, whether more pages follow, and the token that asks for the next one.
public struct NotificationHistoryResponse: Decodable, Sendable, Equatable {
    /// One notification of the history (`NotificationHistoryResponseItem`).
    public struct Item: Decodable, Sendable, Equatable {
        /// The notification's `signedPayload`, exactly as the receiver gets it.
        public var signedPayload: String
        /// Apple's attempts to deliver it (`SendAttemptItem`); informative only.
        public var sendAttempts: [SendAttempt]?

        /// An item.
        public init(signedPayload: String, sendAttempts: [SendAttempt]? = nil) {
            self.signedPayload = signedPayload
            self.sendAttempts = sendAttempts
        }
    }

    /// One delivery attempt (`SendAttemptItem`).
    public struct SendAttempt: Decodable, Sendable, Equatable {
        /// When Apple tried, milliseconds since 1970.
        public var attemptDate: Int64?
        /// `SUCCESS`, `TIMED_OUT`, `SSL_ISSUE`, ... (`SendAttemptResult`).
        public var sendAttemptResult: String?

        /// An attempt.
        public init(attemptDate: Int64?, sendAttemptResult: String?) {
            self.attemptDate = attemptDate
            self.sendAttemptResult = sendAttemptResult
        }
    }

    /// This page's notifications.
    public var notificationHistory: [Item]
    /// Whether another page follows.
    public var hasMore: Bool
    /// What asks for the next page (`?paginationToken=`); Apple sends one whenever `hasMore` is true.
    public var paginationToken: String?

    /// A page.
    public init(notificationHistory: [Item], hasMore: Bool, paginationToken: String?) {
        self.notificationHistory = notificationHistory
        self.hasMore = hasMore
        self.paginationToken = paginationToken
    }

    /// Decodes a response body; members Apple may add are ignored. A page that says `hasMore` without a token
    /// cannot be followed and is refused.
    public static func decode(_ body: [UInt8]) throws(AppStoreAPIError) -> NotificationHistoryResponse {
        let page: NotificationHistoryResponse
        do {
            page = try JSONDecoder().decode(NotificationHistoryResponse.self, from: Data(body))
        } catch {
            throw AppStoreAPIError(.invalidResponse, "not a NotificationHistoryResponse: \(JSONPath.describe(error))")
        }
        if page.hasMore && (page.paginationToken ?? "").isEmpty {
            throw AppStoreAPIError(.invalidResponse, "hasMore is true but there is no paginationToken")
        }
        return page
    }
}

/// The error body the App Store Server API sends with a 4xx (`{"errorCode": 4040010, "errorMessage": "..."}`), when
/// it sends one.
public struct AppStoreAPIErrorBody: Decodable, Sendable, Equatable {
    /// Apple's numeric error code.
    public var errorCode: Int?
    /// Apple's message.
    public var errorMessage: String?

    /// The body's error, or nil when it is not one.
    public static func decode(_ body: [UInt8]) -> AppStoreAPIErrorBody? {
        guard let decoded = try? JSONDecoder().decode(AppStoreAPIErrorBody.self, from: Data(body)),
              decoded.errorCode != nil || decoded.errorMessage != nil else { return nil }
        return decoded
    }

    /// `4040010 Transaction id not found.`
    public var summary: String {
        [errorCode.map(String.init), errorMessage].compactMap { $0 }.joined(separator: " ")
    }
}
