import Foundation
import Testing
@testable import ClientHTTP

@Suite struct ClientRequestTests {
    @Test func defaultsToGetWithoutBody() throws {
        let url = try #require(URL(string: "http://127.0.0.1/"))
        let request = ClientRequest(url: url)
        #expect(request.method == .get && request.body == nil && request.headers.isEmpty)
    }
}
