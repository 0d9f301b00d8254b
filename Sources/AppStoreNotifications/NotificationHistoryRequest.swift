import Foundation

/// The body of the App Store Server API's Get Notification History (`POST /inApps/v1/notifications/history`), as
/// Apple documents `NotificationHistoryRequest`: the time span in milliseconds since 1970. The optional filters
/// (`notificationType`, `notificationSubtype`, `onlyFailures`, `transactionId`) are not sent: a backfill asks for
/// everything and lets the store decide what is new, so a notification the receiver answered but lost is found too.
public struct NotificationHistoryRequest: Codable, Sendable, Equatable {
    /// How far back Apple keeps an environment's history (its documented limit on `startDate`): 180 days in
    /// Production, 30 in Sandbox.
    public static func retentionDays(_ environment: AppStoreEnvironment) -> Int64 {
        environment == .production ? 180 : 30
    }
    /// The path of the endpoint under the API's base URL.
    public static let path = "/inApps/v1/notifications/history"
    /// The query parameter that asks for the page after the one that gave the token.
    public static let paginationTokenParameter = "paginationToken"

    /// The start of the span, inclusive, milliseconds since 1970.
    public var startDate: Int64
    /// The end of the span, milliseconds since 1970 (Apple uses now for a later one).
    public var endDate: Int64

    /// A request for [`startDate`, `endDate`).
    public init(startDate: Int64, endDate: Int64) {
        self.startDate = startDate
        self.endDate = endDate
    }

    /// The JSON body (`{"endDate":…,"startDate":…}`).
    public func body() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Two integers always encode.
        return (try? encoder.encode(self)).map { [UInt8]($0) } ?? []
    }
}
