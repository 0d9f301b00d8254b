import ClientHTTP
import Testing

@Suite struct ClientHeaderNameTests {
    @Test func namesCompareWithoutCaseAndMatchTheWire() {
        #expect(ClientHeaderName.ifNoneMatch.rawValue == "If-None-Match")
        #expect(ClientHeaderName.eTag == "etag")
        #expect(Set<ClientHeaderName>(["ETag", "etag"]).count == 1)
    }

    @Test func headersTakeTypedNames() {
        var headers: ClientHeaders = [.accept: "application/json", "X-Custom": "1"]
        headers.set(name: .ifNoneMatch, value: "\"1-abc\"")
        headers.add(name: .ifNoneMatch, value: "\"2-def\"")
        #expect(headers[.accept] == "application/json")
        #expect(headers.values(for: .ifNoneMatch) == ["\"1-abc\"", "\"2-def\""])
        #expect(headers["if-none-match"] == "\"1-abc\"")
        headers.remove(name: .ifNoneMatch)
        #expect(!headers.contains(.ifNoneMatch) && headers.contains("x-custom"))
    }
}
