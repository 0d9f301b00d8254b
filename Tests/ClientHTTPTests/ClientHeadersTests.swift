import Testing
@testable import ClientHTTP

@Suite struct ClientHeadersTests {
    @Test func lookupIsCaseInsensitiveAndKeepsOrder() {
        var headers: ClientHeaders = ["Content-Type": "application/json", "Set-Cookie": "a=1"]
        headers.add(name: "set-cookie", value: "b=2")
        #expect(headers["content-type"] == "application/json")
        #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        #expect(headers.fields.map(\.name) == ["Content-Type", "Set-Cookie", "set-cookie"])
        #expect(headers["ETag"] == nil)
    }
}
