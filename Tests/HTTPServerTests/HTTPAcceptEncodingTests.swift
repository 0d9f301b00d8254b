import HTTPServer
import Testing

/// `Accept-Encoding` (RFC 9110 §12.5.3) as `HTTPAcceptEncoding` reads it for gzip.
@Suite struct HTTPAcceptEncodingTests {
    @Test(arguments: [
        ["gzip"], ["GZip"], ["x-gzip"], ["deflate, gzip"], ["gzip;q=0.001"], ["br;q=1.0, gzip ; Q=0.5"], ["*"],
        ["identity", "gzip"], [" , gzip , "], ["gzip;level=1"], ["gzip;q=1.000"], ["*;q=0.1, br"],
    ])
    func accepted(_ fields: [String]) {
        #expect(HTTPAcceptEncoding.acceptsGzip(fields), "\(fields)")
    }

    @Test(arguments: [
        [], [""], ["identity"], ["br, deflate"], ["gzip;q=0"], ["gzip;q=0.000"], ["*, gzip;q=0"], ["*;q=0"],
        ["gzip;q=1.5"], ["gzip;q=x"], ["gzip;q=0.0001"], ["gzipx"], ["gzi"], [";q=1"],
    ])
    func refused(_ fields: [String]) {
        #expect(!HTTPAcceptEncoding.acceptsGzip(fields), "\(fields)")
    }
}
