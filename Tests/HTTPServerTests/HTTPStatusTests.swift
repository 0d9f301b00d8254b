import Testing
@testable import HTTPServer

@Suite struct HTTPStatusTests {
    @Test func reasonPhrasesAndBodyRules() {
        #expect(HTTPStatus(code: 431).reasonPhrase == "Request Header Fields Too Large")
        #expect(HTTPStatus.contentTooLarge.description == "413 Content Too Large")
        #expect(HTTPStatus(code: 299).reasonPhrase == "")
        #expect(HTTPStatus.noContent.forbidsBody)
        #expect(HTTPStatus.notModified.forbidsBody)
        #expect(HTTPStatus.continue.forbidsBody)
        #expect(!HTTPStatus.ok.forbidsBody)
    }

    @Test func methodsFromBytesShareConstants() {
        let get = Array("GET".utf8).withUnsafeBytes { HTTPMethod(bytes: $0) }
        #expect(get == .GET)
        let custom = Array("PROPFIND".utf8).withUnsafeBytes { HTTPMethod(bytes: $0) }
        #expect(custom.rawValue == "PROPFIND")
    }
}
