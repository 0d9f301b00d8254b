import Foundation
import Testing
@testable import FlagClient

@Suite struct HTTPResponseTests {
    @Test func defaultsAreEmpty() {
        let response = HTTPResponse(status: 304)
        #expect(response.headers.isEmpty && response.body.isEmpty)
        #expect(response == HTTPResponse(status: 304, headers: HTTPHeaders(), body: Data()))
    }
}
