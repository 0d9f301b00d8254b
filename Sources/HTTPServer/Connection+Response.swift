import Glibc

extension Connection {
    /// Appends the status line, the handler's headers (minus the ones the server owns), `Date`,
    /// `Content-Length`, `Connection`, and the body unless the request was `HEAD` or the status forbids one.
    func serialize(_ response: HTTPResponse, for request: InFlight, close: Bool) {
        let status = response.status
        let isHead = request.method == .HEAD
        outbound.append(contentsOf: EventLoop.statusLinePrefix)
        Connection.appendDecimal(status.code, to: &outbound)
        outbound.append(0x20)
        outbound.append(contentsOf: status.reasonPhrase.utf8)
        outbound.append(contentsOf: EventLoop.crlf)
        for field in response.headers where !Connection.isServerOwned(field.name) {
            outbound.append(contentsOf: field.name.utf8)
            outbound.append(contentsOf: EventLoop.colonSpace)
            outbound.append(contentsOf: field.value.utf8)
            outbound.append(contentsOf: EventLoop.crlf)
        }
        outbound.append(contentsOf: loop.date.line)
        if !status.forbidsBody {
            outbound.append(contentsOf: EventLoop.contentLengthPrefix)
            Connection.appendDecimal(response.body.count, to: &outbound)
            outbound.append(contentsOf: EventLoop.crlf)
        }
        if close {
            outbound.append(contentsOf: EventLoop.connectionClose)
        } else if request.http10 {
            outbound.append(contentsOf: EventLoop.connectionKeepAlive)
        }
        outbound.append(contentsOf: EventLoop.crlf)
        let bodyBytes = isHead || status.forbidsBody ? 0 : response.body.count
        if bodyBytes > 0 { outbound.append(contentsOf: response.body) }
        loop.counters.recordResponse(status: status.code, bodyBytes: bodyBytes)
        switch loop.core.configuration.accessLog {
        case .off: break
        case .standardError:
            let entry = logEntry(request, status: status.code, bodyBytes: bodyBytes)
            var line = Array(entry.line.utf8)
            line.append(0x0A)
            _ = line.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
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
        case 4: HTTPHeaders.equalsIgnoringCase(name, "Date")
        case 10: HTTPHeaders.equalsIgnoringCase(name, "Connection")
        case 14: HTTPHeaders.equalsIgnoringCase(name, "Content-Length")
        case 17: HTTPHeaders.equalsIgnoringCase(name, "Transfer-Encoding")
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
