import Testing
@testable import HTTPServer

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

    /// The request path reads the fields as the bytes they arrived as: it must decide as the string version does.
    @Test func parsedFieldsAreReadAsTheirStrings() throws {
        let cases: [[String]] = [
            ["gzip"], ["GZip"], ["x-gzip"], ["deflate, gzip"], ["gzip;q=0.001"], ["br;q=1.0, gzip ; Q=0.5"], ["*"],
            ["identity", "gzip"], [" , gzip , "], ["gzip;level=1"], ["gzip;q=1.000"], ["*;q=0.1, br"],
            [], [""], ["identity"], ["br, deflate"], ["gzip;q=0"], ["gzip;q=0.000"], ["*, gzip;q=0"], ["*;q=0"],
            ["gzip;q=1.5"], ["gzip;q=x"], ["gzip;q=0.0001"], ["gzipx"], ["gzi"], [";q=1"], ["gzip, deflate, br"],
            ["gzip;q=0", "gzip"], ["br", "*;q=0.5"],
        ]
        for fields in cases {
            let head = "GET / HTTP/1.1\r\nHost: h\r\n" + fields.map { "Accept-Encoding: \($0)\r\n" }.joined() + "\r\n"
            let request = try #require(parseAll(head).requests.first, "\(fields)")
            #expect(HTTPAcceptEncoding.acceptsGzip(request.headers) == HTTPAcceptEncoding.acceptsGzip(fields), "\(fields)")
            #expect(HTTPAcceptEncoding.acceptsGzip(HTTPHeaders(fields.map { ("Accept-Encoding", $0) }))
                == HTTPAcceptEncoding.acceptsGzip(fields), "\(fields)")
        }
        #expect(HTTPAcceptEncoding.acceptsGzip(try #require(parseAll("GET / HTTP/1.1\r\nHost: h\r\naccept-encoding: gzip\r\n\r\n").requests.first).headers))
    }
}
