import FlagKit
import Testing
@testable import FlagOFREP

@Suite struct OFREPRequestTests {
    func refusal(_ text: String) -> OFREPFailure? {
        if case .failure(let failure) = OFREPRequest.parse(Array(text.utf8)) { return failure }
        return nil
    }

    @Test func mapsTargetingKeyAndBuiltInAttributes() throws {
        let request = try OFREPRequest.parse(Array(#"{"context":{"targetingKey":"id-1","locale":"en-US","appVersion":"2.4","plan":3}}"#.utf8)).get()
        #expect(request.context.installId == "id-1")
        #expect(request.context.locale == "en-US")
        #expect(request.context.appVersion == "2.4")
        #expect(request.context.custom["plan"] == .integer(3))
    }

    @Test func canonicalContextIgnoresOrderAndWhitespace() throws {
        let a = try OFREPRequest.parse(Array(#"{"context":{"b":1,"targetingKey":"x"}}"#.utf8)).get()
        let b = try OFREPRequest.parse(Array(#"{ "context" : { "targetingKey" : "x", "b" : 1 } }"#.utf8)).get()
        #expect(a.canonicalContext == b.canonicalContext)
    }

    @Test func emptyContextIsAccepted() throws {
        let request = try OFREPRequest.parse(Array(#"{"context":{}}"#.utf8)).get()
        #expect(request.context.installId == nil)
    }

    @Test func emptyTargetingKeyCountsAsMissing() throws {
        let request = try OFREPRequest.parse(Array(#"{"context":{"targetingKey":""}}"#.utf8)).get()
        #expect(request.context.installId == nil)
    }

    @Test func refusesEmptyBody() {
        #expect(refusal("")?.code == .parseError)
        #expect(refusal(" \n")?.code == .parseError)
    }

    @Test func refusesMalformedJSONWithPosition() throws {
        let failure = try #require(refusal(#"{"context": {"#))
        #expect(failure.code == .parseError)
        #expect(failure.details.contains("not JSON"))
    }

    @Test func refusesDuplicateMembers() throws {
        let failure = try #require(refusal(#"{"context":{"targetingKey":"a","targetingKey":"b"}}"#))
        #expect(failure.code == .parseError)
        #expect(failure.details.contains("/context/targetingKey"))
    }

    @Test func refusesNonObjectBody() {
        #expect(refusal("[1]")?.code == .parseError)
        #expect(refusal("true")?.code == .parseError)
    }

    @Test func refusesMissingOrNonObjectContext() {
        #expect(refusal("{}")?.code == .invalidContext)
        #expect(refusal(#"{"context":"x"}"#)?.code == .invalidContext)
        #expect(refusal(#"{"context":null}"#)?.code == .invalidContext)
    }

    @Test func refusesNonStringTargetingKeyAndBuiltIns() throws {
        #expect(refusal(#"{"context":{"targetingKey":42}}"#)?.code == .invalidContext)
        let failure = try #require(refusal(#"{"context":{"targetingKey":"a","appVersion":2.4}}"#))
        #expect(failure.code == .invalidContext)
        #expect(failure.details.contains("/context/appVersion"))
    }

    @Test func refusesConflictingTargetingKeyAndInstallId() {
        #expect(refusal(#"{"context":{"targetingKey":"a","installId":"b"}}"#)?.code == .invalidContext)
        #expect(refusal(#"{"context":{"targetingKey":"a","installId":"a"}}"#) == nil)
    }

    @Test func theInstallDateIsAnRFC3339DateTimeOrTheRequestIsRefused() throws {
        let request = try OFREPRequest.parse(Array(#"{"context":{"targetingKey":"a","firstInstallDate":"2026-11-20T08:15:00+01:00"}}"#.utf8)).get()
        #expect(request.context.firstInstallMilliseconds == 1_795_158_900_000)
        #expect(try OFREPRequest.parse(Array(#"{"context":{"targetingKey":"a"}}"#.utf8)).get().context.firstInstallDate == nil, "absent: unknown")
        for (date, problem) in [(#""2026-11-20""#, "the time is missing"), (#""2026-11-20T08:15:00""#, "the offset is missing"),
                                ("1795158900000", "must be a string, not integer"), ("null", "must be a string, not null"),
                                (#""2026-11-20T08:15:60Z""#, "a leap second")] {
            let failure = try #require(refusal(#"{"context":{"targetingKey":"a","firstInstallDate":\#(date)}}"#), "\(date)")
            #expect(failure.code == .invalidContext)
            #expect(failure.details.hasPrefix("/context/firstInstallDate ") && failure.details.contains(problem), "\(failure.details)")
        }
    }
}
