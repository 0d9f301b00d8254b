import ClientHTTP
import Dispatch
import FlagKit
import Foundation

/// The flag server as `flagctl` talks to it: ClientHTTP's platform transport (libcurl on Linux), the base URL from
/// `--server`/`FLAGCTL_SERVER` and the bearer token from `FLAGCTL_TOKEN`.
///
/// Commands are synchronous (a CLI does one thing at a time), so each exchange blocks the calling thread
/// until the transport's task is done; the transport itself runs on threads of its own.
public struct ServerClient: Sendable {
    /// The server's base URL as given (an API under a path prefix works: `https://host/flags`).
    public let baseURL: URL
    /// The bearer token, if `FLAGCTL_TOKEN` is set.
    public let token: String?
    /// The platform's transport (``TransportKind/platformDefault``).
    let transport: any HTTPTransport

    /// Limits for an operator's tool: more patient than the app (a human is waiting, not a launch screen),
    /// and a body limit well above any real document.
    public static let transportOptions = TransportOptions(connectTimeout: .seconds(5), totalTimeout: .seconds(30),
                                                          maxResponseBodyBytes: 32 << 20)

    /// A client for the configured server; `notConfigured` without one.
    public init(globals: GlobalOptions) throws(ServerError) {
        guard let server = globals.server else { throw .notConfigured }
        self.init(baseURL: server, token: globals.token)
    }

    /// A client for `baseURL`.
    public init(baseURL: URL, token: String?, options: TransportOptions = ServerClient.transportOptions) {
        self.baseURL = baseURL
        self.token = token
        transport = TransportKind.platformDefault.makeTransport(options: options)
    }

    /// The server as shown in messages (`http://127.0.0.1:8080`).
    public var serverName: String {
        var text = baseURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// The URL of an API path made of `segments`, each percent-encoded as one path segment (RFC 3986 §3.3),
    /// so a flag key with `/` or `?` stays one segment.
    func url(_ segments: [String], query: String? = nil) throws(ServerError) -> URL {
        let encoded = segments.map { $0.addingPercentEncoding(withAllowedCharacters: Self.segmentCharacters) ?? $0 }
        var text = serverName + "/" + encoded.joined(separator: "/")
        if let query { text += "?" + query }
        guard let url = URL(string: text) else { throw .unreadableReply(url: text, reason: "not a valid URL") }
        return url
    }

    /// A query string of `pairs` in their order, each value percent-encoded to unreserved characters and `:`, so that
    /// `+` (a time's offset) and `&` are never read as a space or a separator.
    public static func queryString(_ pairs: [(String, String)]) -> String {
        pairs.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: queryValueCharacters) ?? $0.1)" }.joined(separator: "&")
    }

    /// Unreserved characters (RFC 3986 §2.3) and `:`.
    private static let queryValueCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:")

    /// RFC 3986 `pchar` without `/`: unreserved, sub-delims, `:` and `@`.
    private static let segmentCharacters = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@")

    /// Performs one exchange and returns the response whatever its status; throws only when no response came.
    func exchange(_ method: ClientMethod, _ url: URL, headers extra: ClientHeaders = ClientHeaders(),
                  body: Data? = nil) throws(ServerError) -> ClientResponse {
        var headers = ClientHeaders()
        headers.add(name: .accept, value: "application/json")
        headers.add(name: .userAgent, value: "flagctl")
        if let token { headers.add(name: .authorization, value: "Bearer \(token)") }
        if body != nil { headers.add(name: .contentType, value: "application/json") }
        for field in extra { headers.add(name: field.name, value: field.value) }
        let request = ClientRequest(method: method, url: url, headers: headers, body: body)
        let transport = self.transport
        let result = BlockingExchange.run { () async -> Result<ClientResponse, TransportError> in
            do throws(TransportError) {
                return .success(try await transport.send(request))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let response): return response
        case .failure(let error): throw .transport(error, server: serverName)
        }
    }

    /// Like `exchange`, but a status outside 2xx becomes `.refused` with the server's error.
    func successful(_ method: ClientMethod, _ url: URL, headers: ClientHeaders = ClientHeaders(),
                    body: Data? = nil) throws(ServerError) -> ClientResponse {
        let response = try exchange(method, url, headers: headers, body: body)
        guard (200..<300).contains(response.status) else { throw refusal(method, url, response) }
        return response
    }

    /// The error of a non-2xx response.
    func refusal(_ method: ClientMethod, _ url: URL, _ response: ClientResponse) -> ServerError {
        .refused(ServerRefusal(method: method.rawValue, url: url.absoluteString, status: response.status, body: response.body,
                               sentToken: token != nil))
    }

    /// Parses a 2xx body as a JSON object.
    func object(_ response: ClientResponse, from url: URL) throws(ServerError) -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try JSONParser.parse([UInt8](response.body)).value
        } catch {
            throw .unreadableReply(url: url.absoluteString, reason: "the body is not JSON: \(error)")
        }
        guard let object = value.objectValue else {
            throw .unreadableReply(url: url.absoluteString, reason: "/: expected an object, got \(value.typeName)")
        }
        return object
    }

    /// Member `name` of a reply, which must be an array.
    func array(_ object: [String: JSONValue], _ name: String, _ url: URL) throws(ServerError) -> [JSONValue] {
        guard let array = object[name]?.arrayValue else { throw .unreadableReply(url: url.absoluteString, reason: "/\(name): expected an array") }
        return array
    }

    /// The `.conflict` a 412 to a write means, with the version now current: from the 412's ETag (`"N-hash"`),
    /// else the store's `currentVersion` in the body. Nil for any other status.
    func conflict(_ method: ClientMethod, _ url: URL, _ response: ClientResponse, _ environment: String,
                  basedOn current: PublishedVersion?) -> ServerError? {
        guard response.status == 412 else { return nil }
        var now = response.headers[.eTag].flatMap(Self.versionOfETag)
        if now == nil, case .refused(let refusal) = refusal(method, url, response), refusal.code == "precondition_failed" {
            now = (try? JSONParser.parse([UInt8](response.body)))?.value.objectValue?["error"]?.objectValue?["currentVersion"]?
                .integerValue.map { Int($0) }
        }
        return .conflict(environment: environment, currentVersion: now, basedOn: current?.version)
    }
}

/// `X-Change-Message` carries the change's message; the server percent-decodes it, so `%`, controls and
/// non-ASCII (German messages) are percent-encoded as UTF-8 and arrive exactly as typed.
enum ChangeMessage {
    /// The header's name (the wire contract's).
    static let header = APIHeader.changeMessage

    /// The header value for `message`.
    static func encode(_ message: String) -> String {
        var out = ""
        for byte in message.utf8 {
            if byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: "%") {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            } else {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return out
    }
}

extension String {
    /// The string with leading zeros up to `width` characters.
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
