import HTTPServer
import Testing

@Suite struct HTTPHeaderNameTests {
    @Test func namesCompareAndHashWithoutCase() {
        #expect(HTTPHeaderName.eTag == "etag")
        #expect(HTTPHeaderName.ifNoneMatch.rawValue == "If-None-Match")
        #expect(Set<HTTPHeaderName>(["ETag", "etag", "ETAG"]).count == 1)
        #expect(HTTPHeaderName.eTag != HTTPHeaderName.ifMatch)
    }

    @Test func headersAreSubscriptedByTypedNames() {
        var headers: HTTPHeaders = [.contentType: "application/json", "x-custom": "1"]
        headers.add(name: .eTag, value: "\"1\"")
        #expect(headers[.contentType] == "application/json")
        #expect(headers[HTTPHeaderName("X-Custom")] == "1")
        #expect(headers.contains(.eTag))
        #expect(headers.values(for: .eTag) == ["\"1\""])
        headers.replaceOrAdd(name: .eTag, value: "\"2\"")
        #expect(headers[.eTag] == "\"2\"")
        headers.remove(.contentType)
        #expect(!headers.contains(.contentType))
    }
}
