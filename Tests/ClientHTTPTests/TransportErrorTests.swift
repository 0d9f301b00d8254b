import Testing
@testable import ClientHTTP

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

    @Test func urlErrorCodesAreClassified() {
        #expect(TransportError.kind(forURLErrorCode: -999) == .cancelled)
        #expect(TransportError.kind(forURLErrorCode: -1001) == .timedOut)
        #expect(TransportError.kind(forURLErrorCode: -1004) == .connectionFailed)
        #expect(TransportError.kind(forURLErrorCode: -1003) == .connectionFailed)
        #expect(TransportError.kind(forURLErrorCode: -1009) == .connectionFailed)
        #expect(TransportError.kind(forURLErrorCode: -1005) == .network)
        #expect(TransportError.kind(forURLErrorCode: -1011) == .invalidResponse)
        #expect(TransportError.kind(forURLErrorCode: -1002) == .invalidResponse)
        #expect(TransportError.kind(forURLErrorCode: -1022) == .invalidRequest)
        for code in -1206 ... -1200 { #expect(TransportError.kind(forURLErrorCode: code) == .tls) }
        #expect(TransportError.kind(forURLErrorCode: -1) == .other)
        #expect(TransportError.kind(forURLErrorCode: 12345) == .other)
    }

    @Test func descriptionKeepsTheURLErrorCode() {
        let error = TransportError(kind: .connectionFailed, urlErrorCode: -1004, message: "Could not connect", url: "http://h/")
        #expect(error.description == "connectionFailed (URLError -1004): Could not connect [http://h/]")
    }

    @Test func descriptionKeepsTheCause() {
        let error = TransportError(kind: .timedOut, curlCode: 28, message: "Operation timed out", url: "http://h/")
        #expect(error.description == "timedOut (CURLcode 28): Operation timed out [http://h/]")
    }
}
