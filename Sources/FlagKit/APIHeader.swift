/// Header fields that the flag API itself defines (`docs/api.md`): part of the wire contract, like
/// `VersionMetadata`, so the server that reads them (FlagService) and the client that sends them (flagctl)
/// spell them from one place. Standard HTTP fields are named by each side's HTTP layer
/// (`HTTPHeaderName` in HTTPServer, `ClientHeaderName` in ClientHTTP).
public enum APIHeader {
    /// `X-Change-Message`: the change message of a `PUT` (percent-encoded UTF-8 is decoded; `docs/api.md`).
    public static let changeMessage = "X-Change-Message"
}
