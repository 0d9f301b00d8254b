import Testing
@testable import HTTPServer

/// RFC 9110 §13.1.1/§13.1.2 precondition evaluation: the flag API's GET and writes (strict), OFREP's bulk
/// evaluation (bare tags tolerated).
@Suite struct HTTPEntityTagListTests {
    let current = "\"7-abcdef0123456789\""

    func noneMatch(_ fields: [String]) -> Bool { HTTPEntityTagList.ifNoneMatch(fields, matches: current) }
    func match(_ fields: [String], _ current: String?) -> Bool { HTTPEntityTagList.ifMatch(fields, matches: current) }
    /// OFREP's reading: one field, bare tags accepted.
    func ofrep(_ field: String, _ current: String) -> Bool {
        HTTPEntityTagList.ifNoneMatch([field], matches: current, acceptingBareTags: true)
    }

    @Test func ifNoneMatchUsesWeakComparison() {
        #expect(noneMatch([current]))
        #expect(noneMatch(["W/\(current)"]))
        #expect(noneMatch(["\"x\", W/\"y\",\(current)"]))
        #expect(noneMatch(["\"x\"", current]), "several fields are one list")
        #expect(noneMatch(["*"]))
        #expect(noneMatch(["\"a,b\", \(current)"]), "a comma inside a tag does not split")
        #expect(!noneMatch(["\"7-abcdef\""]))
        #expect(!noneMatch([String(current.dropFirst().dropLast())]), "unquoted is malformed")
        #expect(!noneMatch(["\"unterminated"]))
        #expect(!noneMatch([]))
        #expect(!noneMatch(["\"x\", junk", current + "x"]), "a malformed field matches nothing")
        #expect(noneMatch(["\"x\", junk", current]), "a malformed field does not spoil the others")
    }

    @Test func ifMatchUsesStrongComparison() {
        #expect(match([current], current))
        #expect(!match(["W/\(current)"], current))
        #expect(match(["\"old\", \(current)"], current))
        #expect(match(["*"], current))
        #expect(!match(["*"], nil), "* needs a current representation")
        #expect(!match([current], nil))
        #expect(!match(["* , \"x\""], current), "* cannot be part of a list")
        #expect(!match([String(current.dropFirst().dropLast())], current), "no bare tags in If-Match")
        #expect(!match([current], "W/\(current)"), "a weak current tag never matches strongly")
    }

    @Test func ofrepMatchesExactQuotedTag() {
        #expect(ofrep(#""abc""#, #""abc""#))
        #expect(!ofrep(#""abd""#, #""abc""#))
    }

    @Test func ofrepMatchesAnyMemberOfAList() {
        #expect(ofrep(#""x", "abc" ,"y""#, #""abc""#))
        #expect(!ofrep(#""x", "y""#, #""abc""#))
    }

    @Test func ofrepWeakComparisonIgnoresWPrefix() {
        #expect(ofrep(#"W/"abc""#, #""abc""#))
    }

    @Test func ofrepStarMatchesAnything() {
        #expect(ofrep("*", #""abc""#))
    }

    @Test func ofrepUnquotedEchoIsAccepted() {
        #expect(ofrep("abc", #""abc""#))
        #expect(ofrep(#""x", abc"#, #""abc""#), "bare and quoted tags in one list")
        #expect(!ofrep("abcd", #""abc""#))
    }

    @Test func ofrepEmptyFieldMatchesNothing() {
        #expect(!ofrep("", #""abc""#))
        #expect(!ofrep(" , ", #""abc""#))
        #expect(!ofrep(#""""#, #""abc""#))
    }

    @Test func parsedListsAndWildcard() {
        #expect(HTTPEntityTagList(parsing: " * ") == .any)
        #expect(HTTPEntityTagList(parsing: #""a", W/"b""#)
            == .tags([HTTPEntityTag(opaque: "a"), HTTPEntityTag(opaque: "b", weak: true)]))
        #expect(HTTPEntityTagList(parsing: "a") == nil)
        #expect(HTTPEntityTagList(parsing: "a", acceptingBareTags: true) == .tags([HTTPEntityTag(opaque: "a")]))
        #expect(HTTPEntityTagList(parsing: "*, \"a\"") == nil)
        #expect(HTTPEntityTagList.isAny(["\"a\"", " *"]))
        #expect(!HTTPEntityTagList.isAny(["\"*\""]))
    }

    /// A document's two tags prepared once, read against a request's fields as bytes.
    @Test func aTagSetMatchesEitherTagInAnyFormOfTheField() throws {
        let identity = "\"7-abcdef0123456789\"", gzip = "\"7-abcdef0123456789-gzip\""
        let tags = HTTPEntityTagSet([identity, gzip])
        func matches(_ fields: [String]) throws -> Bool {
            let head = "GET / HTTP/1.1\r\nHost: h\r\n" + fields.map { "If-None-Match: \($0)\r\n" }.joined() + "\r\n"
            let parsed = try #require(parseAll(head).requests.first).headers
            let built = HTTPHeaders(fields.map { ("If-None-Match", $0) })
            #expect(tags.matchesIfNoneMatch(parsed) == tags.matchesIfNoneMatch(built), "\(fields)")
            // Either tag alone decides as the string evaluation does.
            let expected = HTTPEntityTagList.ifNoneMatch(fields, matches: identity) || HTTPEntityTagList.ifNoneMatch(fields, matches: gzip)
            #expect(tags.matchesIfNoneMatch(parsed) == expected, "\(fields)")
            return tags.matchesIfNoneMatch(parsed)
        }
        #expect(try matches([identity]))
        #expect(try matches([gzip]))
        #expect(try matches(["W/\(gzip)"]))
        #expect(try matches(["\"x\", \(gzip)"]))
        #expect(try matches(["\"x\"", identity]))
        #expect(try matches(["*"]))
        #expect(try matches([" , \(identity) , "]))
        #expect(!(try matches([])))
        #expect(!(try matches(["\"7-abcdef0123456789-br\""])))
        #expect(!(try matches(["7-abcdef0123456789"])), "unquoted: not on the document GET")
        #expect(!(try matches(["\"x\", junk, \(identity)"])), "a malformed line matches nothing")
        #expect(try matches(["\"x\", junk", identity]))
        #expect(!(try matches(["*, \(identity)"])))
        #expect(!HTTPEntityTagSet(["not a tag"]).matchesIfNoneMatch(HTTPHeaders([("If-None-Match", "\"a\"")])))
    }

    /// With a length limit (the document GET under its lock): lines up to it decide as without one; a longer line
    /// before any match leaves it undecided (nil); a match on an earlier line decides.
    @Test func aTagSetLeavesLongFieldLinesUndecidedWhenAsked() throws {
        let identity = "\"7-abcdef0123456789\""
        let tags = HTTPEntityTagSet([identity])
        let long = (0..<20).map { "\"other-\($0)\"" }.joined(separator: ", ")
        func decide(_ fields: [String]) -> Bool? {
            tags.matchesIfNoneMatch(HTTPHeaders(fields.map { ("If-None-Match", $0) }), fieldLinesUpTo: 64)
        }
        #expect(decide([identity]) == true)
        #expect(decide(["\"x\""]) == false)
        #expect(decide([]) == false)
        #expect(decide([long + ", " + identity]) == nil)
        #expect(decide([long]) == nil)
        #expect(decide(["\"x\"", long]) == nil)
        #expect(decide([identity, long]) == true)
        let headers = HTTPHeaders([("If-None-Match", long + ", " + identity)])
        #expect(tags.matchesIfNoneMatch(headers), "undecided under the limit, matched without it")
    }
}
