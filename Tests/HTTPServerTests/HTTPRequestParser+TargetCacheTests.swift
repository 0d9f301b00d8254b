import Testing
@testable import HTTPServer

@Suite struct HTTPRequestParserTargetCacheTests {
    /// A connection's repeated target reuses its strings; any other target, longer or differing in one byte, is
    /// decoded anew.
    @Test func repeatedTargetsGiveTheSameStringsAndOthersTheirOwn() {
        let long = "/" + String(repeating: "x", count: 80)
        let targets = ["/a?x=1", "/a?x=1", "/a?x=2", "/b", "/a?x=1", long, long, long + "?q", "http://h/c?d", "/a?x=1", "/a%3Fx=1"]
        let input = targets.map { "GET \($0) HTTP/1.1\r\nHost: h\r\n\r\n" }.joined()
        let parsed = parseAll(input, splits: [7, 40, 41, 100])
        #expect(parsed.error == nil)
        #expect(parsed.requests.map(\.target) == targets)
        #expect(parsed.requests.map(\.path) == ["/a", "/a", "/a", "/b", "/a", long, long, long, "/c", "/a", "/a%3Fx=1"])
        #expect(parsed.requests.map(\.query) == ["x=1", "x=1", "x=2", nil, "x=1", nil, nil, "q", "d", "x=1", nil])
    }
}
