import Testing
@testable import FlagKit

/// RFC 6901 pointers: escaping and unescaping reference tokens.
@Suite struct JSONPathTests {
    @Test func escapesTildeAndSlash() {
        #expect(JSONPath.pointer(["flags", "a/b", "~c"]) == "/flags/a~1b/~0c")
        #expect(JSONPath.appending("/flags", "x", "rules") == "/flags/x/rules")
    }

    @Test func unescapeInvertsEscape() {
        for token in ["plain", "a/b", "~", "~1", "/~/", "", "ü~0/"] {
            #expect(JSONPath.unescape(JSONPath.escape(token)) == token, "\(token)")
        }
        // "~01" is "~" then "1": the tilde's escape is decoded first, never read as "/".
        #expect(JSONPath.unescape("~01") == "~1")
    }

    @Test func unescapeRefusesAStrayTilde() {
        #expect(JSONPath.unescape("a~") == nil)
        #expect(JSONPath.unescape("a~2") == nil)
    }
}
