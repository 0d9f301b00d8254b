import Testing
@testable import FlagStore

/// JSON in text columns: canonical arrays out, strict reading in.
@Suite struct StoredJSONTests {
    @Test func arraysRoundTrip() throws {
        let text = StoredJSON.text(["b", "a\"", "ü"])
        #expect(text == #"["b","a\"","ü"]"#)
        #expect(try StoredJSON.strings(text, column: "c") == ["b", "a\"", "ü"])
        #expect(try StoredJSON.strings("[]", column: "c").isEmpty)
    }

    @Test(arguments: ["", "{}", "[1]", "[\"a\",null]", "[\"a\""])
    func anythingElseIsCorruption(text: String) {
        #expect {
            try StoredJSON.strings(text, column: "tokens.environments")
        } throws: { error in
            guard let error = error as? DatabaseError else { return false }
            return error.isCorruption && error.message.contains("tokens.environments")
        }
    }
}
