import Testing
@testable import FlagClient

@Suite struct HTTPMethodTests {
    @Test func methodTokens() {
        #expect(HTTPMethod.put.isValidToken)
        #expect(HTTPMethod(rawValue: "M-SEARCH").isValidToken)
        #expect(!HTTPMethod(rawValue: "").isValidToken)
        #expect(!HTTPMethod(rawValue: "GET X").isValidToken)
        #expect(!HTTPMethod(rawValue: "GET\r\n").isValidToken)
    }
}
