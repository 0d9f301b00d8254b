import HTTPServer
import Testing
@testable import FlagOFREP

@Suite struct OFREPTokenAuthorizerTests {
    let authorizer = OFREPTokenAuthorizer { token in
        switch token {
        case "all": .allEnvironments
        case "staging-only": .environments(["staging"])
        default: .unknown
        }
    }

    func decide(_ headers: HTTPHeaders, _ environment: String = "production") -> OFREPAccess {
        authorizer.authorize(HTTPRequest(method: .POST, target: "/ofrep/v1/evaluate/flags", headers: headers), environment: environment)
    }

    func isUnauthorized(_ access: OFREPAccess) -> Bool {
        if case .unauthorized = access { return true }
        return false
    }

    @Test func missingCredentialsAre401() {
        #expect(isUnauthorized(decide([:])))
    }

    @Test func bearerAndAPIKeyAreBothAccepted() {
        #expect(decide(["Authorization": "Bearer all"]) == .allowed)
        #expect(decide(["X-API-Key": "all"]) == .allowed)
    }

    @Test func unknownTokensAndOtherSchemesAre401() {
        #expect(isUnauthorized(decide(["Authorization": "Bearer guess"])))
        #expect(isUnauthorized(decide(["Authorization": "Basic YWxsOg=="])))
        #expect(isUnauthorized(decide(["X-API-Key": ""])))
    }

    @Test func everyPresentedCredentialMustBeValid() {
        #expect(isUnauthorized(decide(["Authorization": "Bearer all", "X-API-Key": "guess"])))
        #expect(decide(["Authorization": "Bearer all", "X-API-Key": "all"]) == .allowed)
    }

    @Test func tokensLimitedToOtherEnvironmentsAre403() {
        #expect(decide(["Authorization": "Bearer staging-only"], "staging") == .allowed)
        if case .forbidden(let message) = decide(["Authorization": "Bearer staging-only"], "production") {
            #expect(message.contains("production"))
        } else {
            Issue.record("expected 403")
        }
    }

    @Test func closureAgreesWithAuthorize() {
        let request = HTTPRequest(method: .POST, target: "/", headers: ["X-API-Key": "all"])
        #expect(authorizer.closure(request, "x") == .allowed)
    }
}
