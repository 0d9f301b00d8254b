import Testing
@testable import FlagOFREP

@Suite struct OFREPETagTests {
    @Test func matchesExactQuotedTag() {
        #expect(OFREPETag.matches(#""abc""#, #""abc""#))
        #expect(!OFREPETag.matches(#""abd""#, #""abc""#))
    }

    @Test func matchesAnyMemberOfAList() {
        #expect(OFREPETag.matches(#""x", "abc" ,"y""#, #""abc""#))
        #expect(!OFREPETag.matches(#""x", "y""#, #""abc""#))
    }

    @Test func weakComparisonIgnoresWPrefix() {
        #expect(OFREPETag.matches(#"W/"abc""#, #""abc""#))
    }

    @Test func starMatchesAnything() {
        #expect(OFREPETag.matches("*", #""abc""#))
    }

    @Test func unquotedEchoIsAccepted() {
        #expect(OFREPETag.matches("abc", #""abc""#))
    }

    @Test func emptyFieldMatchesNothing() {
        #expect(!OFREPETag.matches("", #""abc""#))
        #expect(!OFREPETag.matches(" , ", #""abc""#))
        #expect(!OFREPETag.matches(#""""#, #""abc""#))
    }
}
