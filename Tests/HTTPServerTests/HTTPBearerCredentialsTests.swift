import HTTPServer
import Testing

/// RFC 6750 §2.1: absent, malformed, or a token.
@Suite struct HTTPBearerCredentialsTests {
    func credentials(_ authorization: String?) -> HTTPBearerCredentials {
        var headers = HTTPHeaders()
        if let authorization { headers.add(name: .authorization, value: authorization) }
        return HTTPBearerCredentials(headers)
    }

    @Test func parsesBearerCaseInsensitively() {
        #expect(credentials(nil) == .absent)
        #expect(credentials("Bearer sfl_abc") == .token("sfl_abc"))
        #expect(credentials("bearer   sfl_abc ") == .token("sfl_abc"))
        #expect(credentials("BEARER sfl_abc").token == "sfl_abc")
    }

    @Test func anotherSchemeOrNoTokenIsMalformed() {
        #expect(credentials("Basic dXNlcg==") == .malformed(.otherScheme))
        #expect(credentials("Bearer") == .malformed(.missingToken))
        #expect(credentials("Bearer ") == .malformed(.missingToken))
        #expect(credentials("") == .malformed(.otherScheme))
        #expect(credentials("Bearersfl_abc") == .malformed(.otherScheme))
        #expect(credentials("Basic abc").token == nil)
    }

    @Test func onlyTheFirstFieldCounts() {
        let headers: HTTPHeaders = [.authorization: "Bearer first", "authorization": "Bearer second"]
        #expect(HTTPBearerCredentials(headers) == .token("first"))
    }
}
