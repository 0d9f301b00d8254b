import Testing
@testable import HTTPServer

/// Feeds `input` to a parser in pieces split at `splits`, the way a connection does (keeping unconsumed
/// bytes), and returns the requests completed, whether 100-continue was signalled, and the refusal if any.
func parseAll(
    _ input: String, splits: [Int] = [], limits: HTTPRequestParser.Limits = HTTPRequestParser.Limits()
) -> (requests: [HTTPRequest], continues: Int, error: HTTPError?) {
    var parser = HTTPRequestParser(limits: limits)
    let bytes = Array(input.utf8)
    var pending: [UInt8] = []
    var requests: [HTTPRequest] = []
    var continues = 0
    var cuts = splits.filter { $0 > 0 && $0 < bytes.count }.sorted()
    cuts.append(bytes.count)
    var start = 0
    for cut in cuts {
        pending.append(contentsOf: bytes[start..<cut])
        start = cut
        while true {
            do {
                let (used, event) = try pending.withUnsafeBytes { try parser.parse($0) }
                pending.removeFirst(used)
                switch event {
                case .needMore: if used == 0 || pending.isEmpty { break } else { continue }
                case .head(let continueNeeded): if continueNeeded { continues += 1 }; continue
                case .request(let r): requests.append(r); continue
                }
                break
            } catch {
                return (requests, continues, error as? HTTPError)
            }
        }
    }
    return (requests, continues, nil)
}

func refusal(_ input: String, limits: HTTPRequestParser.Limits = HTTPRequestParser.Limits()) -> (Int, String)? {
    parseAll(input, limits: limits).error.map { ($0.status.code, $0.code) }
}

@Suite struct HTTPRequestParserTests {
    @Test func tokenMasksAgreeWithTheTcharList() {
        // RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" /
        // "`" / "|" / "~" / DIGIT / ALPHA
        expectMask(HTTPRequestParser.isToken, matches: "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    }

    @Test func commonFieldNamesAreSharedOnlyWhenSpelledExactly() {
        for name in ["Host", "Accept", "Expect", "Connection", "User-Agent", "Content-Type", "If-None-Match",
                     "Authorization", "Content-Length", "Accept-Encoding", "Accept-Language"] {
            let bytes = Array(name.utf8)
            #expect(bytes.withUnsafeBytes { HTTPRequestParser.commonFieldName($0) } == name)
            let lower = Array(name.lowercased().utf8)
            #expect(lower.withUnsafeBytes { HTTPRequestParser.commonFieldName($0) } == nil)
        }
        #expect(Array("X-Hostx".utf8).withUnsafeBytes { HTTPRequestParser.commonFieldName($0) } == nil)
        #expect(Array("Hosu".utf8).withUnsafeBytes { HTTPRequestParser.commonFieldName($0) } == nil)
    }

    @Test func simpleGet() throws {
        let (requests, _, error) = parseAll("GET /a/b?x=1&y=%20z HTTP/1.1\r\nHost: example\r\nX-Two: 1\r\nx-two: 2\r\n\r\n")
        #expect(error == nil)
        let r = try #require(requests.first)
        #expect(r.method == .GET)
        #expect(r.target == "/a/b?x=1&y=%20z")
        #expect(r.path == "/a/b")
        #expect(r.query == "x=1&y=%20z")
        #expect(r.queryParameter("y") == " z")
        #expect(r.version == .http1_1)
        #expect(r.headers["HOST"] == "example")
        #expect(r.headers.values(for: "X-TWO") == ["1", "2"])
        #expect(r.headers.map(\.name) == ["Host", "X-Two", "x-two"])
        #expect(r.body.isEmpty)
    }

    @Test func valuesAreTrimmedAndEmptyValuesKept() throws {
        let r = try #require(parseAll("GET / HTTP/1.1\r\nHost:   h \t\r\nX-Empty:\r\n\r\n").requests.first)
        #expect(r.headers["host"] == "h")
        #expect(r.headers["x-empty"] == "")
    }

    @Test func leadingEmptyLinesAreIgnored() throws {
        #expect(parseAll("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n").requests.count == 1)
    }

    @Test func absoluteFormTarget() throws {
        let r = try #require(parseAll("GET http://h:8080/p/q?z HTTP/1.1\r\nHost: h:8080\r\n\r\n").requests.first)
        #expect(r.path == "/p/q")
        #expect(r.query == "z")
    }

    @Test func contentLengthBody() throws {
        let r = try #require(parseAll("PUT /x HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello").requests.first)
        #expect(r.bodyText == "hello")
    }

    @Test func identicalRepeatedContentLengthIsAccepted() throws {
        #expect(parseAll("PUT /x HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok").requests.first?.bodyText == "ok")
        #expect(parseAll("PUT /x HTTP/1.1\r\nHost: h\r\nContent-Length: 2, 2\r\n\r\nok").requests.first?.bodyText == "ok")
    }

    @Test func chunkedBodyWithExtensionsAndTrailers() throws {
        let input = "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value;flag\r\nhello\r\n6 ; q=\"x y\"\r\n world\r\n0\r\nChecksum: abc\r\nX-T: 1\r\n\r\n"
        let (requests, _, error) = parseAll(input)
        #expect(error == nil)
        let r = try #require(requests.first)
        #expect(r.bodyText == "hello world")
        #expect(r.trailers["checksum"] == "abc")
        #expect(r.trailers.count == 2)
        #expect(r.headers["Checksum"] == nil)
    }

    @Test func chunkedUppercaseHexAndCodingCase() throws {
        let r = try #require(parseAll("POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n").requests.first)
        #expect(r.bodyText == "0123456789")
    }

    @Test func pipelinedRequests() throws {
        let input = "GET /1 HTTP/1.1\r\nHost: h\r\n\r\nPUT /2 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"
            + "POST /3 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nz\r\n0\r\n\r\nGET /4 HTTP/1.0\r\n\r\n"
        let (requests, _, error) = parseAll(input)
        #expect(error == nil)
        #expect(requests.map(\.path) == ["/1", "/2", "/3", "/4"])
        #expect(requests.map(\.bodyText) == ["", "abc", "z", ""])
        #expect(requests[3].version == .http1_0)
    }

    /// Every split point of a pipelined stream with every framing gives the same requests.
    @Test func splitAtEveryByteBoundary() throws {
        let input = "\r\nGET /1?q=1 HTTP/1.1\r\nHost: h\r\nA: b\r\n\r\nPUT /2 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\nabc"
            + "POST /3 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3;e=1\r\nxyz\r\n2\r\n!!\r\n0\r\nT: v\r\n\r\n"
        let whole = parseAll(input)
        #expect(whole.error == nil)
        #expect(whole.requests.count == 3)
        for cut in 1..<input.utf8.count {
            let split = parseAll(input, splits: [cut])
            #expect(split.error == nil, "cut at \(cut)")
            #expect(split.requests.map(\.path) == ["/1", "/2", "/3"], "cut at \(cut)")
            #expect(split.requests.map(\.bodyText) == ["", "abc", "xyz!!"], "cut at \(cut)")
            #expect(split.requests.last?.trailers["t"] == "v", "cut at \(cut)")
        }
        // And byte by byte.
        let single = parseAll(input, splits: Array(1..<input.utf8.count))
        #expect(single.requests.map(\.bodyText) == ["", "abc", "xyz!!"])
        #expect(single.continues == 1)
    }

    @Test func expectContinueIsSignalledOnlyBeforeTheBody() throws {
        let head = "PUT /x HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n"
        #expect(parseAll(head).continues == 1)
        #expect(parseAll(head + "ok").continues == 0)
        #expect(parseAll(head + "ok").requests.first?.bodyText == "ok")
        #expect(parseAll("PUT /x HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n\r\n").continues == 0)
    }

    // MARK: refusals

    @Test func malformedRequestLines() {
        for bad in [
            "GET\r\n\r\n", "GET /\r\n\r\n", "GET  / HTTP/1.1\r\nHost: h\r\n\r\n", "GET / HTTP/1.1 \r\nHost: h\r\n\r\n",
            "G(T / HTTP/1.1\r\nHost: h\r\n\r\n", "GET / http/1.1\r\nHost: h\r\n\r\n", "GET / HTTP/1.10\r\nHost: h\r\n\r\n",
            "GET /a\u{7F}b HTTP/1.1\r\nHost: h\r\n\r\n", "GET /é HTTP/1.1\r\nHost: h\r\n\r\n", "GET * HTTP/1.1\r\nHost: h\r\n\r\n",
            "GET example.com:80 HTTP/1.1\r\nHost: h\r\n\r\n", " GET / HTTP/1.1\r\nHost: h\r\n\r\n",
        ] {
            #expect(refusal(bad)?.0 == 400, "\(bad.debugDescription)")
        }
    }

    @Test func bareCRAndBareLFAreRefused() {
        #expect(refusal("GET / HTTP/1.1\nHost: h\n\n")?.1 == "bare_lf")
        #expect(refusal("GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n")?.1 == "bare_cr")
    }

    @Test func malformedHeaders() {
        #expect(refusal("GET / HTTP/1.1\r\nHost : h\r\n\r\n")?.0 == 400)
        #expect(refusal("GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n")?.0 == 400)
        #expect(refusal("GET / HTTP/1.1\r\nHost: h\r\n: empty\r\n\r\n")?.0 == 400)
        #expect(refusal("GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n folded\r\n\r\n")?.1 == "obsolete_line_folding")
        #expect(refusal("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{01}b\r\n\r\n")?.0 == 400)
        #expect(refusal("GET / HTTP/1.1\r\nHo[st: h\r\n\r\n")?.0 == 400)
    }

    @Test func hostRules() {
        #expect(refusal("GET / HTTP/1.1\r\n\r\n")?.1 == "missing_host")
        #expect(refusal("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")?.1 == "duplicate_host")
        #expect(refusal("GET / HTTP/1.0\r\n\r\n") == nil)
    }

    @Test func smuggling() {
        #expect(refusal("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")?.1 == "smuggling")
        #expect(refusal("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n")?.1 == "smuggling")
        #expect(refusal("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd")?.1 == "smuggling")
        #expect(refusal("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 4\r\n\r\nabcd")?.1 == "smuggling")
        #expect(refusal("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, identity\r\n\r\n")?.0 == 400)
        #expect(refusal("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n")?.1 == "smuggling")
        #expect(refusal("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")?.1 == "smuggling")
        #expect(refusal("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +3\r\n\r\nabc")?.0 == 400)
        #expect(refusal("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0x3\r\n\r\nabc")?.0 == 400)
        #expect(refusal("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: \r\n\r\n")?.0 == 400)
        #expect(refusal("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding:\r\n\r\n")?.0 == 400)
    }

    @Test func unsupportedTransferCodingIs501() {
        #expect(refusal("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n")?.0 == 501)
        #expect(refusal("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n")?.0 == 501)
        #expect(refusal("CONNECT h:443 HTTP/1.1\r\nHost: h\r\n\r\n")?.0 == 501)
    }

    @Test func malformedChunks() {
        let head = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
        #expect(refusal(head + "z\r\n")?.1 == "malformed_chunk")
        #expect(refusal(head + "3\r\nabcX\r\n")?.1 == "malformed_chunk")
        #expect(refusal(head + "3 x\r\nabc\r\n")?.1 == "malformed_chunk")
        #expect(refusal(head + "3;a\u{01}\r\nabc\r\n")?.1 == "malformed_chunk")
        #expect(refusal(head + "\r\n")?.1 == "malformed_chunk")
        #expect(refusal(head + "1\r\na\r\n0\r\nBad Trailer\r\n\r\n")?.0 == 400)
    }

    @Test func unsupportedVersionIs505() {
        #expect(refusal("GET / HTTP/2.0\r\nHost: h\r\n\r\n")?.0 == 505)
        #expect(refusal("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")?.0 == 505)
        #expect(refusal("GET / HTTP/0.9\r\nHost: h\r\n\r\n")?.0 == 505)
    }

    @Test func unknownExpectationIs417() {
        #expect(refusal("PUT / HTTP/1.1\r\nHost: h\r\nExpect: teapot\r\nContent-Length: 1\r\n\r\nx")?.0 == 417)
    }

    @Test func limits() {
        var l = HTTPRequestParser.Limits()
        l.maxRequestLineBytes = 64
        l.maxHeaderBytes = 128
        l.maxHeaderCount = 3
        l.maxBodyBytes = 10
        let longTarget = "GET /" + String(repeating: "a", count: 100) + " HTTP/1.1\r\nHost: h\r\n\r\n"
        #expect(refusal(longTarget, limits: l)?.0 == 414)
        // Without the line end yet: refused as soon as the line passes the limit, not at the end.
        #expect(parseAll("GET /" + String(repeating: "a", count: 100), limits: l).error?.status.code == 414)
        let bigHeader = "GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "b", count: 200) + "\r\n\r\n"
        #expect(refusal(bigHeader, limits: l)?.0 == 431)
        #expect(parseAll("GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "b", count: 300), limits: l).error?.status.code == 431)
        #expect(refusal("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: l)?.0 == 431)
        #expect(refusal("PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n", limits: l)?.0 == 413)
        #expect(refusal("PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999\r\n\r\n", limits: l)?.0 == 413)
        #expect(refusal("PUT / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n5\r\nabcde\r\n", limits: l)?.0 == 413)
        #expect(refusal("PUT / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffffff\r\n", limits: l)?.0 == 413)
        #expect(refusal("PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n0123456789", limits: l) == nil)
    }

    @Test func refusalsCloseTheConnection() {
        #expect(parseAll("GET / HTTP/1.1\r\n\r\n").error?.closesConnection == true)
        #expect(parseAll("GET / HTTP/2.0\r\n\r\n").error?.closesConnection == true)
    }

    enum HeadEnd: Equatable {
        case end(Int)
        case needMore
        case refused(String)
    }

    /// The byte-by-byte scan `findHeadEnd` replaced: the CR of the blank line ending the head, nil, or
    /// the refusal's code.
    static func referenceHeadEnd(_ b: [UInt8]) -> HeadEnd {
        var i = 0
        while i < b.count {
            if b[i] == 0x0A {
                guard i > 0, b[i - 1] == 0x0D else { return .refused("bare_lf") }
                if i >= 3, b[i - 2] == 0x0A, b[i - 3] == 0x0D { return .end(i - 3) }
            } else if i > 0, b[i - 1] == 0x0D, b[i] != 0x0A {
                return .refused("bare_cr")
            }
            i += 1
        }
        return .needMore
    }

    @Test func headEndSearchAgreesWithTheByteByByteScan() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x61, 0x20, 0x3A, 0x0D, 0x0A, 0x0D, 0x0A]
        for _ in 0..<20_000 {
            // A line that is never empty first: leading empty lines are skipped before the search runs.
            var bytes: [UInt8] = [0x61]
            for _ in 0..<Int.random(in: 0...40, using: &generator) { bytes.append(alphabet.randomElement(using: &generator) ?? 0x61) }
            let expected = Self.referenceHeadEnd(bytes)
            // Fed growing, as bytes arrive: the search resumes where the previous call stopped.
            var parser = HTTPRequestParser(limits: .init())
            var outcome = HeadEnd.needMore
            var fed = 0
            while fed < bytes.count {
                fed = min(bytes.count, fed + Int.random(in: 1...8, using: &generator))
                let prefix = Array(bytes[0..<fed])
                do {
                    let end = try prefix.withUnsafeBytes { try parser.findHeadEnd($0) }
                    outcome = end.map(HeadEnd.end) ?? .needMore
                    if end != nil { break }
                } catch {
                    outcome = .refused((error as? HTTPError)?.code ?? "\(error)")
                    break
                }
            }
            // The reference scans everything at once; a stop at an earlier prefix must be the same answer.
            #expect(outcome == expected, "\(bytes)")
        }
    }
}
