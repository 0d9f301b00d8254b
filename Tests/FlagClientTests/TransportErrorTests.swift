import Testing
@testable import FlagClient

@Suite struct TransportErrorTests {
    @Test func curlCodesAreClassified() {
        #expect(TransportError.kind(forCurlCode: 7) == .connectionFailed)
        #expect(TransportError.kind(forCurlCode: 28) == .timedOut)
        #expect(TransportError.kind(forCurlCode: 60) == .tls)
        #expect(TransportError.kind(forCurlCode: 18) == .truncatedBody)
        #expect(TransportError.kind(forCurlCode: 52) == .invalidResponse)
        #expect(TransportError.kind(forCurlCode: 42) == .cancelled)
        #expect(TransportError.kind(forCurlCode: 9999) == .other)
    }

    @Test func descriptionKeepsTheCause() {
        let error = TransportError(kind: .timedOut, curlCode: 28, message: "Operation timed out", url: "http://h/")
        #expect(error.description == "timedOut (CURLcode 28): Operation timed out [http://h/]")
    }
}
