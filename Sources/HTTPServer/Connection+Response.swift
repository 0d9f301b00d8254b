extension Connection {
    /// Appends the status line and the handler's headers minus the ones the server owns (encoded already
    /// when the response was made with `encodingHead()`), `Date`,
    /// `Content-Length`, `Connection`, and the body unless the request was `HEAD` or the status forbids one.
    func serialize(_ response: HTTPResponse, for request: InFlight, close: Bool) {
        let code = response.statusCode
        let forbidsBody = HTTPStatus.forbidsBody(code)
        let isHead = request.method == .HEAD
        let bodyBytes = isHead || forbidsBody ? 0 : response.bodyCount
        withOutputBuffer { out in
            // One growth when the buffer must grow instead of a series of doublings.
            if let head = response.encodedHead {
                out.reserveCapacity(forAppending: head.count + 96 + bodyBytes)
                out.append(contentsOf: head)
            } else {
                out.reserveCapacity(forAppending: 192 + response.headers.count * 48 + bodyBytes)
                var sink = out
                HTTPResponse.appendHead(status: response.status, headers: response.headers, to: &sink)
            }
            if !forbidsBody {
                if let line = response.encodedLengthLine {
                    out.append(contentsOf: line)
                } else {
                    out.append("Content-Length: ")
                    var sink = out
                    Connection.appendDecimal(response.bodyCount, to: &sink)
                    out.append("\r\n")
                }
            }
            out.append(contentsOf: loop.dateLineBytes)
            if close {
                out.append("Connection: close\r\n")
            } else if request.http10 {
                out.append("Connection: keep-alive\r\n")
            }
            out.append("\r\n")
            if bodyBytes > 0 { response.withBodyBytes { out.append(contentsOf: $0) } }
        }
        loop.counters.recordResponse(status: code, bodyBytes: bodyBytes)
        switch loop.accessLog {
        case .off: break
        case .standardError:
            let entry = logEntry(request, status: code, bodyBytes: bodyBytes)
            System.writeStandardError(Array((entry.line + "\n").utf8))
        case .custom(let sink):
            sink(logEntry(request, status: code, bodyBytes: bodyBytes))
        }
    }

    func logEntry(_ request: InFlight, status: Int, bodyBytes: Int) -> HTTPAccessLogEntry {
        let elapsed = Socket.monotonicNanoseconds() &- request.startedAt
        return HTTPAccessLogEntry(
            method: request.method, target: request.target, status: status, bodyBytes: bodyBytes,
            microseconds: Int(elapsed / 1000), peer: peer)
    }

    /// `Content-Length`, `Date`, `Connection` and `Transfer-Encoding` are always written by the server.
    static func isServerOwned(_ name: String) -> Bool {
        switch name.utf8.count {
        case 4: HTTPHeaders.equalsIgnoringCase(name, HTTPHeaderName.date.rawValue)
        case 10: HTTPHeaders.equalsIgnoringCase(name, HTTPHeaderName.connection.rawValue)
        case 14: HTTPHeaders.equalsIgnoringCase(name, HTTPHeaderName.contentLength.rawValue)
        case 17: HTTPHeaders.equalsIgnoringCase(name, HTTPHeaderName.transferEncoding.rawValue)
        default: false
        }
    }

    static func appendDecimal<Sink: ByteSink>(_ value: Int, to out: inout Sink) {
        if value < 10 {
            out.append(UInt8(0x30 + max(0, value)))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = value, count = 0
        withUnsafeMutableBytes(of: &digits) { d in
            while n > 0 && count < 20 {
                d[19 - count] = UInt8(0x30 + n % 10)
                n /= 10
                count += 1
            }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: d[(20 - count)...]))
        }
    }
}
