import Testing
@testable import CommandLineKit

/// How positional arguments read in usage lines.
@Suite struct ArgumentSpecTests {
    @Test func synopsisByArity() {
        #expect(ArgumentSpec("file", help: "").synopsis == "<file>")
        #expect(ArgumentSpec("flag", .optional, help: "").synopsis == "[<flag>]")
        #expect(ArgumentSpec("file", .oneOrMore, help: "").synopsis == "<file>...")
    }
}
