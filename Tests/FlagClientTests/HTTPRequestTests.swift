import Foundation
import Testing
@testable import FlagClient

@Suite struct HTTPRequestTests {
    @Test func defaultsToGetWithoutBody() throws {
        let url = try #require(URL(string: "http://127.0.0.1/"))
        let request = HTTPRequest(url: url)
        #expect(request.method == .get && request.body == nil && request.headers.isEmpty)
    }
}
