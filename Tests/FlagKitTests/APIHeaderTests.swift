import FlagKit
import Testing

/// The API's own header names are wire contract: renaming one breaks every deployed client.
@Suite struct APIHeaderTests {
    @Test func changeMessageIsTheDocumentedName() {
        #expect(APIHeader.changeMessage == "X-Change-Message")
    }
}
