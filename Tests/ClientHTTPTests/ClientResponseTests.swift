import Foundation
import Testing
@testable import ClientHTTP

@Suite struct ClientResponseTests {
    @Test func defaultsAreEmpty() {
        let response = ClientResponse(status: 304)
        #expect(response.headers.isEmpty && response.body.isEmpty)
        #expect(response == ClientResponse(status: 304, headers: ClientHeaders(), body: Data()))
    }
}
