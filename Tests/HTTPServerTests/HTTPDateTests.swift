import Testing
@testable import HTTPServer

@Suite struct HTTPDateTests {
    @Test func imfFixdate() {
        // RFC 9110 §5.6.7's example.
        #expect(String(decoding: HTTPDate.headerLine(epochSeconds: 784_111_777), as: UTF8.self) == "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n")
        #expect(String(decoding: HTTPDate.headerLine(epochSeconds: 0), as: UTF8.self) == "Date: Thu, 01 Jan 1970 00:00:00 GMT\r\n")
    }

    @Test func imfFixdateTextForOtherFields() {
        // The same format without the field name, for `Last-Modified`.
        #expect(HTTPDate.imfFixdate(epochSeconds: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.imfFixdate(epochSeconds: 1_764_540_000) == "Sun, 30 Nov 2025 22:00:00 GMT")
    }

    @Test func cachedPerSecond() {
        var d = HTTPDate()
        d.update(now: 784_111_777)
        let first = d.line
        d.update(now: 784_111_777)
        #expect(d.line == first)
        d.update(now: 784_111_778)
        #expect(d.line != first)
    }
}
