extension Connection {
    /// Appends the status line and the handler's headers minus the ones the server owns (encoded already
    /// when the response was made with `encodingHead()`), `Date`,
    /// `Content-Length`, `Connection`, and the body unless the request was `HEAD` or the status forbids one.
    func serialize(_ response: HTTPResponse, for request: InFlight, close: Bool) {
        let status = response.status
        let isHead = request.method == .HEAD
        let bodyBytes = isHead || status.forbidsBody ? 0 : response.body.count
        // `out` is a swapped-in local buffer, not a class property: appends to a property would each pay a
        // dynamic exclusivity check.
        withOutputBuffer { out in
            // One allocation when the buffer must grow instead of a series of doublings.
            if let head = response.encodedHead {
                out.reserveCapacity(out.count + head.count + 128 + response.body.count)
                out.append(contentsOf: head)
            } else {
                out.reserveCapacity(out.count + 192 + response.headers.count * 48 + response.body.count)
                HTTPResponse.appendHead(status: status, headers: response.headers, to: &out)
            }
            out.append(contentsOf: loop.date.line)
            if !status.forbidsBody {
                out.append(contentsOf: EventLoop.contentLengthPrefix)
                Connection.appendDecimal(response.body.count, to: &out)
                out.append(contentsOf: EventLoop.crlf)
            }
            if close {
                out.append(contentsOf: EventLoop.connectionClose)
            } else if request.http10 {
                out.append(contentsOf: EventLoop.connectionKeepAlive)
            }
            out.append(contentsOf: EventLoop.crlf)
            if bodyBytes > 0 { out.append(contentsOf: response.body) }
        }
        loop.counters.recordResponse(status: status.code, bodyBytes: bodyBytes)
        switch loop.accessLog {
        case .off: break
        case .standardError:
            let entry = logEntry(request, status: status.code, bodyBytes: bodyBytes)
            System.writeStandardError(Array((entry.line + "\n").utf8))
        case .custom(let sink):
            sink(logEntry(request, status: status.code, bodyBytes: bodyBytes))
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

    static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
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
