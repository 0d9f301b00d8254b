import AppStoreNotifications
import ClientHTTP
import Foundation

/// Reads the App Store Server API's Get Notification History: `POST {base}/inApps/v1/notifications/history` with the
/// span as JSON and a fresh ES256 bearer token on every request, then the next page (`?paginationToken=`) until
/// `hasMore` is false. A 429 or 5xx answer, or a request that got no answer, is tried again after a wait that doubles
/// (`retryBase`, `2 × retryBase`, ...; longer when a Retry-After asks, up to a minute) up to `attempts` times; a 401 (Apple refused the token) and any other 4xx end
/// the read at once.
struct NotificationHistoryClient: Sendable {
    /// Apple's production base URL.
    static let productionURL = "https://api.storekit.itunes.apple.com"
    /// Apple's sandbox base URL.
    static let sandboxURL = "https://api.storekit-sandbox.itunes.apple.com"

    /// The API's base URL (without a trailing slash).
    let baseURL: String
    /// The In-App Purchase key that signs the tokens.
    let key: AppStoreAPIKey
    /// The issuer ID (`iss`).
    let issuerID: String
    /// The app's bundle ID (`bid`).
    let bundleID: String
    /// How requests go out: libcurl on Linux, as webhook deliveries do.
    let transport: any HTTPTransport
    /// The wait before the first retry.
    var retryBase: Duration = .milliseconds(500)
    /// Tries of one request, the first included.
    var attempts = 4

    /// A client of `baseURL` with the platform's transport (10 s to connect, 60 s per request, pages up to 64 MiB).
    init(baseURL: String, key: AppStoreAPIKey, issuerID: String, bundleID: String, transport: (any HTTPTransport)? = nil) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.key = key
        self.issuerID = issuerID
        self.bundleID = bundleID
        self.transport = transport ?? TransportKind.platformDefault.makeTransport(options: TransportOptions(
            connectTimeout: .seconds(10), totalTimeout: .seconds(60), maxResponseBodyBytes: 64 << 20))
    }

    /// Reads every page of `request`'s span and hands each to `onPage` (number from 1, items) as it arrives, so that
    /// what was read is kept even when a later page fails; returns the number of pages.
    func readAll(_ request: NotificationHistoryRequest,
                 onPage: (Int, [NotificationHistoryResponse.Item]) throws(NotificationHistoryError) -> Void)
        async throws(NotificationHistoryError) -> Int {
        var token: String?
        var pages = 0
        repeat {
            let page = try await read(request, paginationToken: token)
            pages += 1
            try onPage(pages, page.notificationHistory)
            token = page.hasMore ? page.paginationToken : nil
        } while token != nil
        return pages
    }

    /// One page, with its retries.
    func read(_ request: NotificationHistoryRequest, paginationToken: String?) async throws(NotificationHistoryError)
        -> NotificationHistoryResponse {
        guard let url = Self.url(baseURL, paginationToken: paginationToken) else {
            throw .invalidURL(baseURL)
        }
        var wait = retryBase
        var attempt = 1
        while true {
            let bearer: String
            do {
                bearer = try AppStoreAPIToken(keyID: key.keyID, issuerID: issuerID, bundleID: bundleID,
                                              issuedAt: Int64(Date().timeIntervalSince1970)).signed(with: key)
            } catch {
                throw .token(error)
            }
            var headers = ClientHeaders()
            headers.add(name: ClientHeaderName.authorization.rawValue, value: "Bearer \(bearer)")
            headers.add(name: ClientHeaderName.contentType.rawValue, value: "application/json")
            headers.add(name: ClientHeaderName.accept.rawValue, value: "application/json")
            headers.add(name: ClientHeaderName.userAgent.rawValue, value: "flagserver-appstore-backfill/1")
            let outcome: NotificationHistoryError
            // Apple's Retry-After on a 429 or 503, when it sends one (at most a minute is honoured).
            var hinted: Duration = .zero
            do {
                let response = try await transport.send(ClientRequest(method: .post, url: url, headers: headers,
                                                                      body: Data(request.body())))
                let body = [UInt8](response.body)
                switch response.status {
                case 200:
                    do {
                        return try NotificationHistoryResponse.decode(body)
                    } catch {
                        throw NotificationHistoryError.invalidResponse(error)
                    }
                case 401:
                    throw NotificationHistoryError.unauthorized(Self.describe(body))
                case 429, 500...599:
                    outcome = .unavailable(status: response.status, attempts: attempt, detail: Self.describe(body))
                    if let value = response.headers[ClientHeaderName.retryAfter.rawValue],
                       let date = RetryAfter.parse(value, now: Date()) {
                        hinted = .milliseconds(Int64(min(60, max(0, date.timeIntervalSinceNow)) * 1000))
                    }
                default:
                    throw NotificationHistoryError.refused(status: response.status, detail: Self.describe(body))
                }
            } catch let error as NotificationHistoryError {
                throw error
            } catch let error as TransportError {
                switch error.kind {
                case .invalidRequest, .setupFailed, .tls, .bodyTooLarge, .cancelled:
                    throw .transport(error, attempts: attempt)
                default:
                    outcome = .transport(error, attempts: attempt)
                }
            } catch {
                throw .transport(TransportError(kind: .other, message: "\(error)", url: url.absoluteString), attempts: attempt)
            }
            guard attempt < attempts else { throw outcome }
            do {
                try await Task.sleep(for: max(wait, hinted))
            } catch {
                throw outcome
            }
            wait *= 2
            attempt += 1
        }
    }

    /// `{base}/inApps/v1/notifications/history`, with `?paginationToken=` (percent-encoded) for a later page.
    static func url(_ base: String, paginationToken: String?) -> URL? {
        guard var components = URLComponents(string: base + NotificationHistoryRequest.path),
              let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http", components.host != nil
        else { return nil }
        if let paginationToken {
            components.queryItems = [URLQueryItem(name: NotificationHistoryRequest.paginationTokenParameter, value: paginationToken)]
            // URLComponents leaves `+` and `/` of a base64 token as they are; a server decoding the query as a form
            // would read `+` as a space.
            components.percentEncodedQuery = components.percentEncodedQuery?
                .replacingOccurrences(of: "+", with: "%2B").replacingOccurrences(of: "/", with: "%2F")
        }
        return components.url
    }

    /// Apple's error body (`4000023 ...`), or the first 200 bytes of another body on one line.
    static func describe(_ body: [UInt8]) -> String {
        if let error = AppStoreAPIErrorBody.decode(body) { return error.summary }
        let text = String(decoding: body.prefix(200), as: UTF8.self).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return text.isEmpty ? "empty body" : text
    }
}

/// Why the notification history could not be read to the end.
enum NotificationHistoryError: Error, CustomStringConvertible {
    /// The base URL is not an absolute http(s) URL.
    case invalidURL(String)
    /// The token could not be made.
    case token(AppStoreAPIError)
    /// 401: Apple refused the token (wrong key, key ID, issuer ID or bundle ID, or a revoked key).
    case unauthorized(String)
    /// Another 4xx: the request itself was refused (for example a start date too far back).
    case refused(status: Int, detail: String)
    /// 429 or 5xx, still after `attempts` tries.
    case unavailable(status: Int, attempts: Int, detail: String)
    /// No answer (still after `attempts` tries when the failure was worth retrying).
    case transport(TransportError, attempts: Int)
    /// A 200 whose body is not a `NotificationHistoryResponse`.
    case invalidResponse(AppStoreAPIError)
    /// Storing a page failed (the store's error).
    case store(any Error)

    /// One line for `flagserver: error: ...`.
    var description: String {
        switch self {
        case .invalidURL(let url): "the App Store Server API URL '\(url)' is not an absolute http or https URL"
        case .token(let error): "cannot make the App Store Server API token: \(error)"
        case .unauthorized(let detail):
            "the App Store Server API answered 401 Unauthorized (\(detail)): Apple refused the token; check --appstore-key-file, "
                + "--appstore-key-id, --appstore-issuer-id and --appstore-bundle-id (App Store Connect → Users and Access → "
                + "Integrations → In-App Purchase), and that the key is not revoked"
        case .refused(let status, let detail): "the App Store Server API refused the request with \(status) (\(detail))"
        case .unavailable(let status, let attempts, let detail):
            "the App Store Server API answered \(status) (\(detail)) \(attempts) time\(attempts == 1 ? "" : "s"); try again later"
        case .transport(let error, let attempts):
            "no answer from the App Store Server API after \(attempts) attempt\(attempts == 1 ? "" : "s"): \(error)"
        case .invalidResponse(let error): "the App Store Server API's answer cannot be read: \(error)"
        case .store(let error): "storing the notifications failed: \(error)"
        }
    }
}
