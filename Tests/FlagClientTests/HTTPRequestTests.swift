import Testing
@testable import FlagClient

@Suite struct HTTPRequestTests {
    @Test func methodTokens() {
        #expect(HTTPMethod.put.isValidToken)
        #expect(HTTPMethod(rawValue: "M-SEARCH").isValidToken)
        #expect(!HTTPMethod(rawValue: "").isValidToken)
        #expect(!HTTPMethod(rawValue: "GET X").isValidToken)
    }

    @Test func timeoutsBecomePositiveMilliseconds() {
        #expect(TransportOptions.milliseconds(.milliseconds(1500)) == 1500)
        #expect(TransportOptions.milliseconds(.zero) == 1)
        #expect(TransportOptions.milliseconds(.seconds(-3)) == 1)
        #expect(TransportOptions.milliseconds(.microseconds(2500)) == 2)
    }

    @Test func curlCodesAreClassified() {
        #expect(TransportError.kind(forCurlCode: 7) == .connectionFailed)
        #expect(TransportError.kind(forCurlCode: 28) == .timedOut)
        #expect(TransportError.kind(forCurlCode: 60) == .tls)
        #expect(TransportError.kind(forCurlCode: 18) == .truncatedBody)
        #expect(TransportError.kind(forCurlCode: 9999) == .other)
    }
}
