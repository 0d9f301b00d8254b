import Testing
@testable import HTTPServer

/// A parsed request's fields are kept as bytes (`HTTPFieldBlock`); read through `HTTPHeaders` they must behave
/// exactly like the same fields built as strings.
@Suite struct HTTPFieldBlockTests {
    static let head = "GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\r\nx-a:  2 \r\nConnection: keep-alive, Upgrade\r\n"
        + "Accept-Encoding: gzip, br\r\nEmpty:\r\nUser-Agent: caf\u{E9}/1\r\n\r\n"
    static let strings: [(String, String)] = [
        ("Host", "h"), ("X-A", "1"), ("x-a", "2"), ("Connection", "keep-alive, Upgrade"), ("Accept-Encoding", "gzip, br"),
        ("Empty", ""), ("User-Agent", "caf\u{E9}/1"),
    ]

    func parsed(_ head: String = Self.head) throws -> HTTPHeaders {
        try #require(parseAll(head).requests.first).headers
    }

    @Test func readsLikeStringFields() throws {
        let raw = try parsed()
        let built = HTTPHeaders(Self.strings)
        guard case .block = raw.storage else {
            Issue.record("the parser should keep the fields as bytes")
            return
        }
        #expect(raw == built)
        #expect(raw.count == 7)
        #expect(raw.map(\.name) == Self.strings.map(\.0))
        #expect(raw.map(\.value) == Self.strings.map(\.1))
        for name in ["host", "X-A", "x-A", "connection", "ACCEPT-ENCODING", "empty", "user-agent", "Missing", "X-", "Hos"] {
            #expect(raw[name] == built[name], "\(name)")
            #expect(raw.values(for: name) == built.values(for: name), "\(name)")
            #expect(raw.contains(name) == built.contains(name), "\(name)")
        }
        #expect(raw.hasToken("upgrade", in: "Connection") && raw.hasToken("KEEP-ALIVE", in: "connection"))
        #expect(!raw.hasToken("close", in: "Connection"))
        #expect(raw.fields == built.fields)
    }

    @Test func containsValueVisitsTheValuesInOrderUntilOneAnswers() throws {
        let raw = try parsed()
        var seen: [String] = []
        let found = raw.containsValue(named: "x-a") { value in
            seen.append(String(decoding: value, as: UTF8.self))
            return value.first == UInt8(ascii: "1")
        }
        #expect(found && seen == ["1"])
        seen = []
        #expect(!raw.containsValue(named: "X-A") { seen.append(String(decoding: $0, as: UTF8.self)); return false })
        #expect(seen == ["1", "2"])
        #expect(!raw.containsValue(named: .ifNoneMatch) { _ in true })
    }

    @Test func aNameWhoseLengthSharesItsBitWithAnotherIsStillFound() throws {
        // Lengths are noted modulo 64: a 70-byte name sets the bit of 6-byte names.
        let long = String(repeating: "L", count: 70)
        let raw = try parsed("GET / HTTP/1.1\r\nHost: h\r\n\(long): v\r\n\r\n")
        #expect(raw[long] == "v")
        #expect(raw["Expect"] == nil)
        #expect(raw[String(repeating: "L", count: 6)] == nil)
        #expect(raw[String(repeating: "L", count: 134)] == nil)
    }

    @Test func aChangeTurnsTheBytesIntoStringsAndKeepsEveryField() throws {
        var raw = try parsed()
        raw.add(name: "X-B", value: "3")
        guard case .strings = raw.storage else {
            Issue.record("a changed header list is strings")
            return
        }
        #expect(raw.map(\.name) == Self.strings.map(\.0) + ["X-B"])
        var removed = try parsed()
        removed.remove("x-a")
        #expect(removed.map(\.name) == ["Host", "Connection", "Accept-Encoding", "Empty", "User-Agent"])
        var replaced = try parsed()
        replaced.replaceOrAdd(name: "Host", value: "other")
        #expect(replaced["host"] == "other" && replaced.count == 7)
    }

    @Test func theBlockIsSharedByCopiesAndOutlivesTheParsersBuffer() throws {
        var copies: [HTTPHeaders] = []
        for _ in 0..<3 { copies.append(try parsed()) }
        let first = copies[0]
        copies.removeAll()
        #expect(first["User-Agent"] == "caf\u{E9}/1")
    }
}
