import FlagKit
import HTTPServer

/// The header fields the flag API adds to HTTP's, as typed names for `HTTPHeaders`.
extension HTTPHeaderName {
    /// `X-Change-Message`: a write's message. Spelled once, in the wire contract (`APIHeader`), which flagctl
    /// sends with.
    public static var changeMessage: Self { HTTPHeaderName(APIHeader.changeMessage) }
    /// `Accept-Put`: the media types a `PUT` takes, sent with a 415 (modelled on `Accept-Patch`, RFC 5789 §3.1).
    @inlinable public static var acceptPut: Self { "Accept-Put" }
    /// `Flagserver-Database-Unreachable-Seconds`: on a document GET of a node that cannot reach the shared database,
    /// the whole seconds since its snapshots were last confirmed current (`DatabaseReachability`); absent otherwise.
    @inlinable public static var databaseUnreachableSeconds: Self { "Flagserver-Database-Unreachable-Seconds" }
}
