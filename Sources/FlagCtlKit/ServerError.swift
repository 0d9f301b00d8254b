import ClientHTTP
import FlagKit
import Foundation

/// Why a conversation with the flag server failed, keeping the cause: the transport's `CURLcode`, or the
/// server's status with its `{"error": {"code", "message", "details"}}`, or the JSON path of a reply we
/// could not read. Every case prints as ONE line (plus one line per validation problem the server listed).
public enum ServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Neither `--server` nor `FLAGCTL_SERVER` names a server.
    case notConfigured
    /// No HTTP response at all: connection refused, timeout, TLS, truncated body.
    case transport(TransportError, server: String)
    /// The server answered with an error status.
    case refused(ServerRefusal)
    /// Someone else published between our read and our write (412 on `If-Match`).
    case conflict(environment: String, currentVersion: Int?, basedOn: Int?)
    /// A 2xx whose body is not what the API documents (with the JSON path that was wrong).
    case unreadableReply(url: String, reason: String)

    /// One line (the server's validation details follow, one per line).
    public var description: String {
        switch self {
        case .notConfigured:
            return "no server: pass --server URL or set FLAGCTL_SERVER"
        case .transport(let error, let server):
            return "cannot reach the server at \(server): \(error.message) (\(error.kind)\(error.curlCode.map { ", CURLcode \($0)" } ?? ""))"
        case .refused(let refusal):
            return refusal.description
        case .conflict(let environment, let current, let basedOn):
            let who = current.map { "someone else published \(environment) version \($0) meanwhile" }
                ?? "\(environment) changed on the server meanwhile"
            let base = basedOn.map { " (this change was based on version \($0))" } ?? ""
            return "\(who)\(base): nothing was changed; run the command again to see the new diff"
        case .unreadableReply(let url, let reason):
            return "unexpected reply from \(url): \(reason)"
        }
    }
}

/// An error status from the server, decoded from its error JSON.
public struct ServerRefusal: Sendable, Equatable, CustomStringConvertible {
    /// `GET`, `PUT`, ...
    public var method: String
    /// The request URL.
    public var url: String
    /// The HTTP status.
    public var status: Int
    /// `error.code` (`unauthorized`, `invalid_document`, ...), or `http_<status>` when the body had none.
    public var code: String
    /// `error.message`, or the start of the body when it was not the API's error JSON.
    public var message: String
    /// `error.details`: `path: message` per validation problem.
    public var details: [String]
    /// Whether `FLAGCTL_TOKEN` was set on the request (decides what a 401 advises).
    public var sentToken: Bool

    /// `GET http://.../document: 404 unknown_environment: ...`, with advice for 401 and 403.
    public var description: String {
        var line = "\(method) \(url): \(status) \(code): \(message)"
        switch status {
        case 401 where sentToken: line += " (the server does not accept FLAGCTL_TOKEN)"
        case 401: line += " (set FLAGCTL_TOKEN to a token from 'flagserver token create')"
        case 403 where code == "self_approval": line += " (another person's token must approve it)"
        case 403 where code == "self_override": line += " (another person's token must override it)"
        case 403 where code == "environment_not_allowed": line += " (FLAGCTL_TOKEN is limited to other environments)"
        // Only the role refusal is about the role: a person refused as the wrong person has a role that may do it.
        case 403 where code == "forbidden": line += " (FLAGCTL_TOKEN's role is not allowed to do this)"
        default: break
        }
        return ([line] + details.map { "  \($0)" }).joined(separator: "\n")
    }

    /// Reads the API's error JSON from `body`; anything else is kept as (at most 200 bytes of) text.
    init(method: String, url: String, status: Int, body: Data, sentToken: Bool) {
        self.method = method
        self.url = url
        self.status = status
        self.sentToken = sentToken
        let error = (try? JSONParser.parse([UInt8](body)))?.value.objectValue?["error"]?.objectValue
        if let error, let code = error["code"]?.stringValue {
            self.code = code
            message = error["message"]?.stringValue ?? ""
            details = (error["details"]?.arrayValue ?? []).compactMap { entry in
                guard let object = entry.objectValue else { return nil }
                return "\(object["path"]?.stringValue ?? ""): \(object["message"]?.stringValue ?? "")"
            }
        } else {
            code = "http_\(status)"
            let text = String(decoding: body.prefix(200), as: UTF8.self)
            message = text.isEmpty ? "(no body)" : text.replacingOccurrences(of: "\n", with: " ")
            details = []
        }
    }
}
