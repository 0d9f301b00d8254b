import Foundation
import Testing
@testable import ClientHTTP

@Suite struct HTTPDateParserTests {
    /// 2026-11-29T00:00:00Z, for resolving two-digit years.
    static let now = Date(timeIntervalSince1970: 1_795_910_400)
    /// RFC 9110 section 5.6.7's example instant, 1994-11-06T08:49:37Z.
    static let example = Date(timeIntervalSince1970: 784_111_777)

    @Test(arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
                      "sun, 06 nov 1994 08:49:37 gmt"])
    func theThreeFormatsOfRFC9110(_ text: String) {
        #expect(HTTPDateParser.parse(text, now: Self.now) == Self.example)
    }

    @Test func twoDigitYearsMoreThanFiftyYearsAheadAreInThePast() {
        let jan1 = { (yy: String) in HTTPDateParser.parse("Thursday, 01-Jan-\(yy) 00:00:00 GMT", now: Self.now) }
        #expect(jan1("26") == HTTPDateParser.parse("Thu, 01 Jan 2026 00:00:00 GMT", now: Self.now))
        #expect(jan1("76") == HTTPDateParser.parse("Wed, 01 Jan 2076 00:00:00 GMT", now: Self.now))
        #expect(jan1("77") == HTTPDateParser.parse("Sat, 01 Jan 1977 00:00:00 GMT", now: Self.now))
    }

    @Test(arguments: ["", "garbage", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 6 Nov 1994 08:49:37 GMT",
                      "Sun, 30 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT",
                      "Sun, 06 Foo 1994 08:49:37 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 94 08:49:37 GMT",
                      "Sun 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT", "Sun Nov 6 08:49:37 94",
                      "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun, 29 Feb 2023 00:00:00 GMT", "Mon, 29 Feb 1900 00:00:00 GMT"])
    func invalidDatesAreRefused(_ text: String) {
        #expect(HTTPDateParser.parse(text, now: Self.now) == nil)
    }

    @Test func leapDaysAndLeapSeconds() {
        #expect(HTTPDateParser.parse("Thu, 29 Feb 2024 12:00:00 GMT", now: Self.now) == Date(timeIntervalSince1970: 1_709_208_000))
        #expect(HTTPDateParser.parse("Tue, 29 Feb 2000 00:00:00 GMT", now: Self.now) == Date(timeIntervalSince1970: 951_782_400))
        #expect(HTTPDateParser.parse("Sat, 31 Dec 2016 23:59:60 GMT", now: Self.now) == Date(timeIntervalSince1970: 1_483_228_799))
    }
}
