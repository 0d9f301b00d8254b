import FlagKit
import HTTPServer

/// The header fields the flag API adds to HTTP's, as typed names for `HTTPHeaders`.
extension HTTPHeaderName {
    /// `X-Change-Message`: a write's message. Spelled once, in the wire contract (`APIHeader`), which flagctl
    /// sends with.
    public static var changeMessage: Self { HTTPHeaderName(APIHeader.changeMessage) }
    /// `Accept-Put`: the media types a `PUT` takes, sent with a 415 (modelled on `Accept-Patch`, RFC 5789 §3.1).
    @inlinable public static var acceptPut: Self { "Accept-Put" }
}
