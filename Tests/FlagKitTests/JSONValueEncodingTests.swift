import Testing
@testable import FlagKit

@Suite struct JSONValueEncodingTests {
    @Test func canonicalFormSortsKeysByUTF8AndDropsWhitespace() throws {
        let value = try JSONParser.parse(#"{ "b": [1, 2.5, {"z": null, "a": true}], "a": "x", "Ä": 1, "Z": 0 }"#).value
        #expect(value.canonicalString == #"{"Z":0,"a":"x","b":[1,2.5,{"a":true,"z":null}],"Ä":1}"#)
    }

    @Test func equalContentGivesEqualBytesWhateverTheInputOrder() throws {
        let first = try JSONParser.parse(#"{"x": {"b": 1, "a": [3, 2]}, "y": 1.50}"#).value
        let second = try JSONParser.parse("{\n  \"y\": 1.5,\n  \"x\": {\"a\": [3, 2], \"b\": 1.0}\n}").value
        #expect(first.canonicalBytes == second.canonicalBytes)
        #expect(SHA256.hexDigest(first.canonicalBytes) == SHA256.hexDigest(second.canonicalBytes))
    }

    @Test func escapesOnlyWhatMustBeEscaped() {
        let value: JSONValue = .string("a\"b\\c\n\t\u{01}/ä🦊")
        #expect(value.canonicalString == #""a\"b\\c\n\t\u0001/ä🦊""#)
    }

    @Test func plainStringsAreCopiedWholeAndEscapesFoundAnywhere() {
        // Small (inline) and large strings take the bulk-copy path; an escape at the very end must still
        // send the string through the escaping path.
        let long = String(repeating: "Symi Plus ä ", count: 40)
        #expect(JSONValue.string("short").canonicalString == #""short""#)
        #expect(JSONValue.string(long).canonicalString == "\"" + long + "\"")
        #expect(JSONValue.string(long + "\"").canonicalString == "\"" + long + "\\\"\"")
        #expect(JSONValue.string("x\u{1f}").canonicalString == #""x\u001f""#)
        #expect(JSONValue.string("").canonicalString == #""""#)
    }

    @Test func canonicalTextParsesBackToTheSameValue() throws {
        let value: JSONValue = ["n": .number(0.1), "i": .integer(-42), "big": .number(1.5e300), "s": "\u{7f}\u{1f}", "e": [], "o": [:]]
        #expect(try JSONParser.parse(value.canonicalBytes).value == value)
        #expect(try JSONParser.parse(value.prettyString).value == value)
    }

    @Test func prettyFormIsIndentedAndSorted() {
        let value: JSONValue = ["b": [1, 2], "a": [:]]
        #expect(value.prettyString == "{\n  \"a\": {},\n  \"b\": [\n    1,\n    2\n  ]\n}\n")
    }
}
