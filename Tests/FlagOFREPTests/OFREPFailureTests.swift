import FlagKit
import Testing
@testable import FlagOFREP

@Suite struct OFREPFailureTests {
    @Test func statusesFollowTheSpec() {
        #expect(OFREPFailure(.flagNotFound, "").status == 404)
        #expect(OFREPFailure(.parseError, "").status == 400)
        #expect(OFREPFailure(.invalidContext, "").status == 400)
        #expect(OFREPFailure(.targetingKeyMissing, "").status == 400)
        #expect(OFREPFailure(.general, "").status == 500)
    }

    @Test func descriptionNamesCodeAndDetails() {
        #expect(OFREPFailure(.parseError, "bad").description == "PARSE_ERROR: bad")
    }
}
