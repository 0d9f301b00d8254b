import Testing
@testable import HTTPServer

/// The segment tree's decisions where trying patterns one by one decided otherwise than a plain walk would
/// (the randomized comparison with the pattern-by-pattern definition is `HTTPRouterTests`).
@Suite struct HTTPRouterTreeTests {
    @Test func aMalformedEscapeIs400OnlyWhereAPatternOfThatLengthHasAParameter() async throws {
        var b = HTTPRouter.Builder()
        b.add(.GET, "/a/{x}") { _, _ in .text("") }
        b.add(.GET, "/a/{y}/b") { _, _ in .text("") }
        let r = try b.build()
        #expect(await route(r, .GET, "/a/%zz/b/c")?.status.code == 404, "no pattern has four segments")
        let named = try #require(await route(r, .GET, "/a/%zz/b"))
        #expect(named.status.code == 400)
        #expect(String(decoding: named.body, as: UTF8.self).contains("bad percent-encoding in y"))
        #expect(String(decoding: try #require(await route(r, .GET, "/a/%zz")).body, as: UTF8.self).contains("in x"))
    }

    @Test func theTreeHoldsEveryPatternOnce() throws {
        var b = HTTPRouter.Builder()
        for pattern in ["/", "/a", "/a/", "/a/{x}", "/a/{x}/b", "/a/c/b", "/{y}/c"] { b.add(.GET, pattern) { _, _ in .text(pattern) } }
        let router = try b.build()
        #expect(router.tree.entries.count == 7)
        #expect(router.tree.nodes.filter { $0.entry >= 0 }.count == 7)
        for (path, pattern) in [("/", "/"), ("/a", "/a"), ("/a/", "/a/"), ("/a/q", "/a/{x}"), ("/a/q/b", "/a/{x}/b"),
                                ("/a/c/b", "/a/c/b"), ("/z/c", "/{y}/c"), ("/a/c", "/a/{x}")] {
            let matched = router.matchParameters(path)
            guard case .some(.success(let (entry, _))) = matched else {
                Issue.record("\(path) did not match")
                continue
            }
            #expect(entry.pattern == pattern, "\(path)")
        }
        #expect(router.matchParameters("/a/q/c") == nil)
        #expect(router.matchParameters("/z/d") == nil)
    }
}
