#if canImport(CCurl)
import CCurl
import Foundation

/// libcurl's process-wide initialisation. A Swift global is initialised lazily exactly once, thread-safely,
/// which is what `curl_global_init` requires (it is not thread-safe before 7.84 and must precede any handle).
private let curlGlobalInitCode: CURLcode = curl_global_init(ccurl_global_all())

/// One request on one libcurl easy handle. All raw libcurl calls of the module live in this file.
///
/// Used on a single thread from `perform()` to its return; the callbacks receive it through an unretained pointer.
final class CurlTransfer {
    private let request: ClientRequest
    private let options: TransportOptions
    /// Set by the calling task's cancellation handler, read here on the transfer's thread.
    private let cancellation: Locked<Bool>
    private var body = Data()
    private var headers: [ClientHeaders.Field] = []
    private var bodyLimitExceeded = false
    /// Streaming: the body goes here as it arrives instead of into `body`; false stops the transfer.
    private let sink: (@Sendable ([UInt8]) -> Bool)?
    private var sinkStopped = false
    private var lastByteAt = DispatchTime.now()
    private var idleExceeded = false

    init(request: ClientRequest, options: TransportOptions, cancellation: Locked<Bool>,
         sink: (@Sendable ([UInt8]) -> Bool)? = nil) {
        self.request = request
        self.options = options
        self.cancellation = cancellation
        self.sink = sink
    }

    /// Runs the exchange to completion, blocking the calling thread for at most the total timeout.
    func perform() -> Result<ClientResponse, TransportError> {
        let url = request.url.absoluteString
        func failure(_ kind: TransportError.Kind, _ message: String, code: Int? = nil) -> Result<ClientResponse, TransportError> {
            .failure(TransportError(kind: kind, curlCode: code, message: message, url: url))
        }
        if let problem = request.problem { return failure(.invalidRequest, problem) }
        if cancellation.withLock({ $0 }) { return failure(.cancelled, "the task was cancelled before the transfer started") }
        guard curlGlobalInitCode == CURLE_OK else {
            return failure(.setupFailed, "curl_global_init failed", code: Int(curlGlobalInitCode.rawValue))
        }
        guard let handle = curl_easy_init() else { return failure(.setupFailed, "curl_easy_init returned NULL") }
        defer { curl_easy_cleanup(handle) }

        let errorSize = ccurl_error_size()
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: errorSize)
        errorBuffer.initialize(repeating: 0, count: errorSize)
        defer { errorBuffer.deallocate() }

        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        var connectTo: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(connectTo) }
        if let address = request.connectAddress {
            // "HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT" with HOST and PORT empty: whatever host and port curl reads
            // from the URL, it connects to this address (on the URL's port) and nowhere else, so a URL that another
            // parser reads differently still reaches only the address the caller checked.
            let entry = address.contains(":") ? "::[\(address)]:" : "::\(address):"
            guard let list = curl_slist_append(nil, entry) else { return failure(.setupFailed, "curl_slist_append failed (out of memory)") }
            connectTo = list
        }
        for line in headerLines() {
            guard let appended = curl_slist_append(headerList, line) else {
                return failure(.setupFailed, "curl_slist_append failed (out of memory)")
            }
            headerList = appended
        }

        let me = Unmanaged.passUnretained(self).toOpaque()
        var setup: [(String, CURLcode)] = [
            ("ERRORBUFFER", ccurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)),
            ("URL", ccurl_setopt_string(handle, CURLOPT_URL, url)),
            ("PROTOCOLS_STR", ccurl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")),
            // Timeouts must not use SIGALRM in a multi-threaded process.
            ("NOSIGNAL", ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)),
            ("CONNECTTIMEOUT_MS", ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS,
                                                    Int(TransportOptions.milliseconds(options.connectTimeout)))),
            // A stream has no total timeout (0: none); the progress callback ends it after that much silence.
            ("TIMEOUT_MS", ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS,
                                             sink == nil ? Int(TransportOptions.milliseconds(options.totalTimeout)) : 0)),
            ("SSL_VERIFYPEER", ccurl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1)),
            ("SSL_VERIFYHOST", ccurl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2)),
            ("FOLLOWLOCATION", ccurl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)),
            // A non-HTTP reply must be an error, not an HTTP/0.9 body.
            ("HTTP09_ALLOWED", ccurl_setopt_long(handle, CURLOPT_HTTP09_ALLOWED, 0)),
            // Refuses an announced Content-Length above the limit before reading the body.
            ("MAXFILESIZE_LARGE", ccurl_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE,
                                                     sink == nil ? curl_off_t(options.maxResponseBodyBytes) : 0)),
            ("WRITEFUNCTION", ccurl_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, curlWriteCallback)),
            ("WRITEDATA", ccurl_setopt_pointer(handle, CURLOPT_WRITEDATA, me)),
            ("HEADERFUNCTION", ccurl_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, curlHeaderCallback)),
            ("HEADERDATA", ccurl_setopt_pointer(handle, CURLOPT_HEADERDATA, me)),
            ("XFERINFOFUNCTION", ccurl_setopt_xferinfo_callback(handle, CURLOPT_XFERINFOFUNCTION, curlProgressCallback)),
            ("XFERINFODATA", ccurl_setopt_pointer(handle, CURLOPT_XFERINFODATA, me)),
            ("NOPROGRESS", ccurl_setopt_long(handle, CURLOPT_NOPROGRESS, 0)),
            ("HTTPHEADER", ccurl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList)),
        ]
        if connectTo != nil {
            setup.append(("CONNECT_TO", ccurl_setopt_slist(handle, CURLOPT_CONNECT_TO, connectTo)))
            // A proxy from the environment (http_proxy) would resolve the name itself, and connect where it likes.
            setup.append(("NOPROXY", ccurl_setopt_string(handle, CURLOPT_NOPROXY, "*")))
        }
        if let caFile = options.caFile {
            setup.append(("CAINFO", ccurl_setopt_string(handle, CURLOPT_CAINFO, caFile)))
        }
        if let codings = request.headers[.acceptEncoding] {
            // curl sends the field itself and decodes what it names (gzip) before the write callback sees it;
            // passed as a plain header line it would hand over the compressed bytes.
            setup.append(("ACCEPT_ENCODING", ccurl_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, codings)))
        }
        setup += methodAndBody(handle)
        if let (name, code) = setup.first(where: { $0.1 != CURLE_OK }) {
            return failure(.setupFailed, "curl_easy_setopt(CURLOPT_\(name)): \(Self.text(code))", code: Int(code.rawValue))
        }

        let code = curl_easy_perform(handle)
        if code != CURLE_OK && !(sinkStopped && code.rawValue == 23) {  // WRITE_ERROR: our sink said stop
            let number = Int(code.rawValue)
            if idleExceeded {
                return failure(.timedOut, "no byte of the stream within \(options.totalTimeout)", code: number)
            }
            if number == 63 || (number == 23 && bodyLimitExceeded) {  // FILESIZE_EXCEEDED, WRITE_ERROR from our callback
                return failure(.bodyTooLarge(limit: options.maxResponseBodyBytes),
                               "response body exceeds limit \(options.maxResponseBodyBytes) bytes", code: number)
            }
            let detail = String(cString: errorBuffer)
            return failure(TransportError.kind(forCurlCode: number), detail.isEmpty ? Self.text(code) : detail, code: number)
        }
        var status = 0
        let infoCode = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        guard infoCode == CURLE_OK, status >= 100 else {
            return failure(.invalidResponse, "no HTTP status received", code: Int(infoCode.rawValue))
        }
        return .success(ClientResponse(status: status, headers: ClientHeaders(headers), body: body))
    }

    /// The caller's fields in curl's syntax (`Name;` sends an empty value, `Name:` suppresses curl's own field).
    private func headerLines() -> [String] {
        var lines = request.headers
            .filter { !ClientHeaders.sameName($0.name, ClientHeaderName.expect.rawValue) }
            .filter { !ClientHeaders.sameName($0.name, ClientHeaderName.acceptEncoding.rawValue) }  // CURLOPT_ACCEPT_ENCODING
            .map { $0.value.isEmpty ? "\($0.name);" : "\($0.name): \($0.value)" }
        if request.sendsBody {
            // No `Expect: 100-continue`: small writes would wait a second for a 100 the server may not send.
            lines.append(ClientHeaderName.expect.rawValue + ":")
            // curl would label a body `application/x-www-form-urlencoded`; send no type unless the caller set one.
            if !request.headers.contains(.contentType) { lines.append(ClientHeaderName.contentType.rawValue + ":") }
        }
        return lines
    }

    private func methodAndBody(_ handle: UnsafeMutableRawPointer) -> [(String, CURLcode)] {
        var results: [(String, CURLcode)] = []
        switch request.method {
        case .get: results.append(("HTTPGET", ccurl_setopt_long(handle, CURLOPT_HTTPGET, 1)))
        case .head: results.append(("NOBODY", ccurl_setopt_long(handle, CURLOPT_NOBODY, 1)))
        case .post: break
        default: results.append(("CUSTOMREQUEST", ccurl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method.rawValue)))
        }
        guard request.sendsBody else { return results }
        let content = request.body ?? Data()
        results.append(("POSTFIELDSIZE_LARGE", ccurl_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(content.count))))
        // COPYPOSTFIELDS copies the bytes, so they need not outlive this call.
        let copied: CURLcode = content.withUnsafeBytes { raw in
            var empty: UInt8 = 0
            guard let base = raw.baseAddress else {
                return ccurl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, &empty)
            }
            return ccurl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: base))
        }
        results.append(("COPYPOSTFIELDS", copied))
        return results
    }

    fileprivate func receive(body bytes: UnsafeRawBufferPointer) -> Bool {
        if let sink {
            lastByteAt = DispatchTime.now()
            if sink(Array(bytes)) { return true }
            sinkStopped = true
            return false
        }
        guard body.count + bytes.count <= options.maxResponseBodyBytes else {
            bodyLimitExceeded = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// One header line as curl hands it over (RFC 9112 section 4 and 5): a status line starts a new
    /// response (interim 1xx ones are dropped this way), `obs-fold` continues the previous field.
    fileprivate func receive(headerLine bytes: UnsafeRawBufferPointer) {
        // Strip CR LF as bytes: in a Swift String "\r\n" is one Character.
        var end = bytes.count
        while end > 0, bytes[end - 1] == 13 || bytes[end - 1] == 10 { end -= 1 }
        let line = Substring(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<end]), as: UTF8.self))
        if line.hasPrefix("HTTP/") {
            headers.removeAll()
        } else if let first = line.first, first == " " || first == "\t", let previous = headers.popLast() {
            headers.append((name: previous.name, value: previous.value + " " + Self.trimmed(line)))
        } else if let colon = line.firstIndex(of: ":") {
            headers.append((name: String(line[..<colon]), value: Self.trimmed(line[line.index(after: colon)...])))
        }
    }

    fileprivate var shouldAbort: Bool {
        if cancellation.withLock({ $0 }) { return true }
        guard sink != nil else { return false }
        let silent = DispatchTime.now().uptimeNanoseconds &- lastByteAt.uptimeNanoseconds
        idleExceeded = silent > UInt64(TransportOptions.milliseconds(options.totalTimeout)) * 1_000_000
        return idleExceeded
    }

    private static func trimmed(_ text: Substring) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    private static func text(_ code: CURLcode) -> String {
        curl_easy_strerror(code).map { String(cString: $0) } ?? "CURLcode \(code.rawValue)"
    }
}

/// CURLOPT_WRITEFUNCTION: returning less than given makes curl stop with CURLE_WRITE_ERROR.
private let curlWriteCallback: ccurl_data_callback = { pointer, size, count, userdata in
    guard let userdata else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    let total = size * count
    return transfer.receive(body: UnsafeRawBufferPointer(start: pointer, count: total)) ? total : 0
}

/// CURLOPT_HEADERFUNCTION: one complete header line per call.
private let curlHeaderCallback: ccurl_data_callback = { pointer, size, count, userdata in
    guard let userdata else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    let total = size * count
    transfer.receive(headerLine: UnsafeRawBufferPointer(start: pointer, count: total))
    return total
}

/// CURLOPT_XFERINFOFUNCTION: called at least about once a second; non-zero aborts with CURLE_ABORTED_BY_CALLBACK.
private let curlProgressCallback: ccurl_xferinfo_callback = { userdata, _, _, _, _ in
    guard let userdata else { return 0 }
    return Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue().shouldAbort ? 1 : 0
}
#endif
