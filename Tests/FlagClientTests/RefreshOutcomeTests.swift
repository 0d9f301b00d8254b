import Foundation
import Testing
@testable import FlagClient

@Suite struct RefreshOutcomeTests {
    @Test func successAndError() {
        #expect(RefreshOutcome.updated(version: 2, previousVersion: 1, cacheError: nil).isSuccess)
        #expect(RefreshOutcome.notModified(version: 2, cacheError: nil).isSuccess)
        #expect(!RefreshOutcome.skipped(until: Date(), reason: .minimumInterval).isSuccess)
        #expect(RefreshOutcome.failed(.unexpectedNotModified).error == .unexpectedNotModified)
        #expect(RefreshOutcome.notModified(version: 2, cacheError: nil).error == nil)
    }

    @Test func descriptionsNameTheCause() {
        #expect(RefreshError.httpStatus(429, retryAfter: "120", body: "slow down").description == "HTTP 429 (Retry-After: 120): slow down")
        #expect(RefreshError.olderVersion(received: 4, current: 5).description == "version 4 is older than version 5 in use")
        #expect(RefreshError.environmentMismatch(expected: "production", received: "staging").description
                == "document for environment \"staging\", not \"production\"")
        let transport = TransportError(kind: .timedOut, curlCode: 28, message: "Operation timed out", url: "http://x/")
        #expect(RefreshError.transport(transport).description == "transport: timedOut (CURLcode 28): Operation timed out [http://x/]")
        #expect(RefreshError.invalidEnvelope(.notAnEnvelope(path: "/version", problem: "must be a positive integer")).description
                == "invalid response body: not a document envelope: /version: must be a positive integer")
    }

    @Test func logExcerptIsShortAndPrintable() {
        let body = Data(("line1\r\nline2\u{7f}" + String(repeating: "x", count: 300)).utf8)
        let excerpt = FlagClient.logExcerpt(body)
        #expect(!excerpt.contains("\r") && !excerpt.contains("\n") && excerpt.hasSuffix("…"))
        #expect(excerpt.hasPrefix("line1  line2 "))
    }
}
