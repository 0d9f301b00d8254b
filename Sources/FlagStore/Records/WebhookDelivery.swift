/// One event for one webhook: the unit that is retried until it is delivered or fails for good.
public struct WebhookDelivery: Sendable, Equatable {
    /// Row id.
    public let id: Int64
    /// The webhook it goes to.
    public let webhookID: Int64
    /// The event's id (`Symi-Webhook-Id`): the same on every attempt.
    public let eventID: String
    /// The event's type (`Symi-Webhook-Event`).
    public let eventType: String
    /// The environment the event is about.
    public let environment: String?
    /// The body to POST.
    public let payload: [UInt8]
    /// Where it stands.
    public let status: WebhookDeliveryStatus
    /// How many attempts were made.
    public let attempts: Int
    /// When the next attempt is due (milliseconds since 1970 UTC); nil unless pending.
    public let nextAttemptAtMilliseconds: Int64?
    /// The HTTP status of the last attempt, when it got an answer.
    public let lastStatus: Int?
    /// Why the last attempt failed (timeout, refused connection, a non-2xx status).
    public let lastError: String?
    /// When the event was enqueued.
    public let createdAtMilliseconds: Int64
    /// When an attempt got a 2xx answer.
    public let deliveredAtMilliseconds: Int64?
}

/// Where a delivery stands.
public enum WebhookDeliveryStatus: String, Sendable, CaseIterable {
    /// Waiting for its next attempt (also after a restart).
    case pending
    /// An attempt got a 2xx answer.
    case delivered
    /// Every attempt failed, or the webhook was deleted.
    case failed
}

/// One HTTP attempt of a delivery, as the delivery log shows it.
public struct WebhookAttempt: Sendable, Equatable {
    /// 1, 2, ... per delivery (`Symi-Webhook-Attempt`).
    public var number: Int
    /// When it started (milliseconds since 1970 UTC).
    public var atMilliseconds: Int64
    /// The HTTP status of the answer, when there was one.
    public var responseStatus: Int?
    /// Why it failed, when it did (timeout, refused connection, a redirect, a non-2xx status, a refused destination).
    public var error: String?
    /// How long it took, in milliseconds.
    public var durationMilliseconds: Int
    /// Whether the server refused to send it: its destination was, or resolved to, an address it does not send to
    /// (loopback, private, link-local, ...). Nothing was sent; `error` says why.
    public var refused: Bool

    /// An attempt; see each property.
    public init(number: Int, atMilliseconds: Int64, responseStatus: Int? = nil, error: String? = nil,
                durationMilliseconds: Int, refused: Bool = false) {
        self.number = number
        self.atMilliseconds = atMilliseconds
        self.responseStatus = responseStatus
        self.error = error
        self.durationMilliseconds = durationMilliseconds
        self.refused = refused
    }
}

/// What becomes of a delivery after an attempt (the dispatcher decides: 2xx, backoff, attempts exhausted).
public enum WebhookAttemptOutcome: Sendable, Equatable {
    /// The attempt got a 2xx answer.
    case delivered
    /// Try again at this time (milliseconds since 1970 UTC).
    case retry(atMilliseconds: Int64)
    /// Give up: the delivery is `failed`.
    case failed
}

/// A delivery with its attempts, oldest attempt first (`GET /v1/webhooks/{id}/deliveries`).
public struct WebhookDeliveryLog: Sendable, Equatable {
    /// The delivery.
    public let delivery: WebhookDelivery
    /// Its attempts.
    public let attempts: [WebhookAttempt]
}
