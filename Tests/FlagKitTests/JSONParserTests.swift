import Testing
@testable import FlagKit

@Suite struct JSONParserTests {
    @Test func parsesEveryKindOfValue() throws {
        let parsed = try JSONParser.parse(#"{"a": [1, -2.5, 1e3, true, false, null, "x\"y\u00e4\ud83e\udd8a"], "b": {}}"#)
        #expect(parsed.value == [
            "a": [1, .number(-2.5), 1000, true, false, nil, "x\"yä🦊"],
            "b": .object([:]),
        ])
        #expect(parsed.duplicateKeyPaths.isEmpty)
    }

    @Test func integralNumbersBecomeIntegers() throws {
        #expect(try JSONParser.parse("1.0").value == .integer(1))
        #expect(try JSONParser.parse("-0").value == .integer(0))
        #expect(try JSONParser.parse("9223372036854775807").value == .integer(Int64.max))
        #expect(try JSONParser.parse("12.5").value == .number(12.5))
    }

    @Test(arguments: [
        ("{\"a\": 1,}", 1, 9, "expected a string as object key"),
        ("{\n  \"a\": 01\n}", 2, 9, "leading zeros"),
        ("[1, 2", 1, 6, "unexpected end of input inside an array"),
        ("{\"a\" 1}", 1, 6, "expected ':'"),
        ("tru", 1, 1, "invalid literal"),
        ("\"abc", 1, 1, "unterminated string"),
        ("\"a\tb\"", 1, 3, "control character"),
        ("\"\\x\"", 1, 3, "invalid escape"),
        ("\"\\ud83e\"", 1, 8, "unpaired UTF-16 surrogate"),
        ("1 2", 1, 3, "unexpected content after the JSON value"),
        ("", 1, 1, "unexpected end of input"),
        ("-", 1, 2, "expected a digit"),
        ("1.", 1, 3, "expected a digit after '.'"),
        ("1e400", 1, 1, "number out of range"),
        ("+1", 1, 1, "unexpected character '+'"),
    ])
    func reportsLineAndColumn(input: String, line: Int, column: Int, message: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(input) }
        do {
            _ = try JSONParser.parse(input)
        } catch {
            #expect(error.line == line, "\(error)")
            #expect(error.column == column, "\(error)")
            #expect(error.message.contains(message), "\(error)")
        }
    }

    @Test func reportsDuplicateKeysWithTheirPaths() throws {
        let parsed = try JSONParser.parse(#"{"flags": {"a/b": {"x": 1, "x": 2}, "c": [{"k": 1, "k": 1}]}, "flags2": 1}"#)
        #expect(parsed.duplicateKeyPaths == ["/flags/a~1b/x", "/flags/c/0/k"])
        #expect(parsed.value.objectValue?["flags"]?.objectValue?["a/b"] == ["x": 2])
    }

    @Test func refusesInvalidUTF8() {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test func refusesNestingDeeperThanTheLimit() throws {
        let deep = String(repeating: "[", count: JSONParser.maximumDepth + 1) + String(repeating: "]", count: JSONParser.maximumDepth + 1)
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(deep) }
        let allowed = String(repeating: "[", count: JSONParser.maximumDepth) + String(repeating: "]", count: JSONParser.maximumDepth)
        #expect(throws: Never.self) { try JSONParser.parse(allowed) }
    }
}
