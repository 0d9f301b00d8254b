/// Limits and trust settings for a ``CurlTransport``.
public struct TransportOptions: Sendable, Equatable {
    /// How long establishing the connection (TCP and TLS) may take.
    public var connectTimeout: Duration
    /// How long the whole exchange may take, connect included. The app uses a few seconds: nothing waits on it.
    public var totalTimeout: Duration
    /// The largest response body accepted; a larger one aborts the transfer with ``TransportError/Kind/bodyTooLarge(limit:)``.
    public var maxResponseBodyBytes: Int
    /// A PEM file of CA certificates to trust instead of the system bundle (`CURLOPT_CAINFO`), for tests with a
    /// private CA. Certificate and host name checks stay on regardless.
    public var caFile: String?

    /// Creates options. The defaults suit the app: 3 s to connect, 5 s in total, 4 MiB of body.
    public init(connectTimeout: Duration = .seconds(3), totalTimeout: Duration = .seconds(5),
                maxResponseBodyBytes: Int = 4 << 20, caFile: String? = nil) {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.maxResponseBodyBytes = maxResponseBodyBytes
        self.caFile = caFile
    }

    /// A duration as whole milliseconds for libcurl's `*_MS` options, at least 1 (0 would mean "no timeout").
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 1 }
        let ms = seconds.multipliedReportingOverflow(by: 1000)
        guard !ms.overflow else { return Int.max }
        return max(1, Int(clamping: ms.partialValue + attoseconds / 1_000_000_000_000_000))
    }
}
