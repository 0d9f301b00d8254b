import Foundation
import Testing
@testable import ClientHTTP

@Suite struct RetryAfterTests {
    static let now = Date(timeIntervalSince1970: 1_795_910_400)

    @Test func deltaSeconds() {
        #expect(RetryAfter.parse("120", now: Self.now) == Self.now.addingTimeInterval(120))
        #expect(RetryAfter.parse(" 0\t", now: Self.now) == Self.now)
        #expect(RetryAfter.parse("99999999999999999999999", now: Self.now) == Self.now.addingTimeInterval(9_999_999_999))
    }

    @Test func httpDates() {
        #expect(RetryAfter.parse("Sun, 29 Nov 2026 00:02:00 GMT", now: Self.now) == Self.now.addingTimeInterval(120))
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: Self.now) == Self.now, "a past date means no wait")
    }

    @Test(arguments: ["", "  ", "-5", "1.5", "+3", "soon", "120s", "0x10"])
    func invalidValuesAreIgnored(_ value: String) {
        #expect(RetryAfter.parse(value, now: Self.now) == nil)
    }

    @Test func onlyFor429And503() {
        #expect(RetryAfter.applies(toStatus: 429))
        #expect(RetryAfter.applies(toStatus: 503))
        #expect(!RetryAfter.applies(toStatus: 500))
        #expect(!RetryAfter.applies(toStatus: 301))
    }
}
