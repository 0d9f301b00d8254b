import Testing
@testable import FlagOFREP

@Suite struct OFREPQueryTests {
    @Test func acceptsUnixSecondsAndDateTimes() {
        for value in ["0", "1771622898", "2026-02-20T21:28:18Z", "2026-02-20t21:28:18.123+01:00", "2016-12-31T23:59:60Z"] {
            #expect(OFREPQuery.problem(in: [("flagConfigLastModified", value)]) == nil, "\(value)")
        }
    }

    @Test func refusesAnythingElse() {
        for value in ["", "false", "-1", "1.5", "2026-13-01T00:00:00Z", "2026-02-20 21:28:18Z", "2026-02-20T21:28:18",
                      "2026-02-20T24:00:00Z", "2026-02-20T21:28:18.Z", "2026-02-20T21:28:18+0100", "12345678901234567890",
                      "2026-02-30T00:00:00Z", "2027-02-29T00:00:00Z"] {
            #expect(OFREPQuery.problem(in: [("flagConfigLastModified", value)])?.code == .parseError, "\(value)")
        }
    }

    @Test func etagAndUnknownParametersAreIgnored() {
        #expect(OFREPQuery.problem(in: [("flagConfigEtag", ""), ("other", "x")]) == nil)
    }
}
