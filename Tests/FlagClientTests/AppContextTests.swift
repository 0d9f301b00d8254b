import Foundation
import FlagKit
import Testing
@testable import FlagClient

@Suite struct AppContextTests {
    @Test func evaluationContextCarriesEveryAttributeAndTheInstallId() {
        let app = AppContext(appVersion: "2.4.1", osVersion: "17.4", platform: "ios", locale: "de_DE", country: "DE",
                             channel: "testflight", custom: ["cohortHint": "x"])
        let context = app.evaluationContext(installId: "I-1")
        #expect(context == EvaluationContext(installId: "I-1", appVersion: "2.4.1", osVersion: "17.4", platform: "ios",
                                             locale: "de_DE", country: "DE", channel: "testflight", custom: ["cohortHint": "x"]))
        #expect(AppContext().evaluationContext(installId: "I-2").appVersion == nil)
    }

    @Test func theFirstInstallDateTravelsAsRFC3339ToTheMillisecond() {
        // 2026-11-20T07:15:00.123456Z: the digits past the millisecond are dropped, as FlagKit drops them when reading.
        let date = Date(timeIntervalSince1970: 1_795_158_900.123456)
        let context = AppContext(appVersion: "2.4.1", firstInstallDate: date).evaluationContext(installId: "I-1")
        #expect(context.firstInstallDate == "2026-11-20T07:15:00.123Z")
        #expect(context.firstInstallMilliseconds == 1_795_158_900_123)
        #expect(AppContext(firstInstallDate: Date(timeIntervalSince1970: -0.5)).evaluationContext(installId: "I").firstInstallDate
                == "1969-12-31T23:59:59.500Z", "before 1970 rounds down too")
        #expect(AppContext().evaluationContext(installId: "I").firstInstallDate == nil, "unknown stays absent")
        // A date RFC 3339 cannot write is unknown, never a trap.
        for unwritable in [Date(timeIntervalSince1970: 1e15), Date(timeIntervalSince1970: -1e15), Date(timeIntervalSince1970: .infinity),
                           Date(timeIntervalSince1970: .nan)] {
            #expect(AppContext(firstInstallDate: unwritable).evaluationContext(installId: "I").firstInstallDate == nil)
        }
    }

    /// The app verifies its AppTransaction after launch: until then (or when it cannot), the early-user rule decides nothing;
    /// once the date arrives through `updateApp`, the client evaluates again and tells its observers.
    @Test func anUnknownDateNeverLocksAndTheVerifiedOneIsEvaluatedOnUpdate() throws {
        let document = try FlagDocument.decode("""
        {"flags": {"premiumFeaturesLocked": {"type": "boolean", "default": false, "rules": [
           {"cohort": "earlyUsers", "value": false}, {"cohort": "installedSinceSwitch", "value": true}]}},
         "cohorts": {"earlyUsers": {"firstInstallDate": {"before": "2027-03-01T00:00:00Z"}},
                     "installedSinceSwitch": {"firstInstallDate": {"after": "2027-03-01T00:00:00Z"}}}}
        """)
        let switchDay = Date(timeIntervalSince1970: 1_803_859_200)
        func locked(_ app: AppContext) -> JSONValue { document.evaluate("premiumFeaturesLocked", context: app.evaluationContext(installId: "I")).value }
        #expect(locked(AppContext()) == false)
        #expect(locked(AppContext(firstInstallDate: switchDay.addingTimeInterval(-86_400))) == false)
        #expect(locked(AppContext(firstInstallDate: switchDay)) == false, "the switch itself is neither before nor after")
        #expect(locked(AppContext(firstInstallDate: switchDay.addingTimeInterval(0.5))) == true)
    }
}
