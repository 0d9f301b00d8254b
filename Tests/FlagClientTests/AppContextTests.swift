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
}
