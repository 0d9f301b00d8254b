/// Header fields that the flag API itself defines (`docs/api.md`): part of the wire contract, like
/// `VersionMetadata`, so the server that reads them (FlagService) and the client that sends them (flagctl)
/// spell them from one place. Standard HTTP fields are named by each side's HTTP layer
/// (`HTTPHeaderName` in HTTPServer, `ClientHeaderName` in ClientHTTP).
public enum APIHeader {
    /// `X-Change-Message`: the change message of a `PUT` (percent-encoded UTF-8 is decoded; `docs/api.md`).
    public static let changeMessage = "X-Change-Message"
    /// `Symi-Webhook-Id`: a webhook delivery's event id, the same on every attempt (receivers de-duplicate by it).
    public static let webhookID = "Symi-Webhook-Id"
    /// `Symi-Webhook-Event`: the event's type (`version.published`, ...).
    public static let webhookEvent = "Symi-Webhook-Event"
    /// `Symi-Webhook-Attempt`: 1 for the first attempt of a delivery, 2 for its first retry, ...
    public static let webhookAttempt = "Symi-Webhook-Attempt"
    /// `Symi-Webhook-Signature`: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>." + body)>` (`docs/api.md`).
    public static let webhookSignature = "Symi-Webhook-Signature"
}
