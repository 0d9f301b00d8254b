import Testing
@testable import ClientHTTP

@Suite struct ClientMethodTests {
    @Test func methodTokens() {
        #expect(ClientMethod.put.isValidToken)
        #expect(ClientMethod(rawValue: "M-SEARCH").isValidToken)
        #expect(!ClientMethod(rawValue: "").isValidToken)
        #expect(!ClientMethod(rawValue: "GET X").isValidToken)
        #expect(!ClientMethod(rawValue: "GET\r\n").isValidToken)
    }
}
