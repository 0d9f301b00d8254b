import FlagServiceTestSupport
import HTTPServer
import Testing
@testable import FlagService

/// The declared access of a route: how it reads in the route table, and which methods it may guard.
@Suite struct RouteAccessTests {
    @Test func descriptionsAreTheRouteTablesWords() {
        #expect(RouteAccess.public.description == "public")
        #expect(RouteAccess.reader.description == "reader")
        #expect(RouteAccess.token(.admin).description == "token(admin)")
        #expect(RouteAccess.write(.writer, dryRun: .reader).description == "write(writer, dryRun: reader)")
        #expect(RouteAccess.evaluation.description == "evaluation")
        #expect(RouteAccess.unscoped(.admin).description == "unscoped(admin)")
        #expect(RouteAccess.signedPayload.description == "signedPayload")
    }

    @Test func unsafeMethodsNeedARoleOrAreEvaluations() {
        for method in [HTTPMethod.GET, .HEAD, .OPTIONS, .TRACE] {
            #expect(RouteAccess.public.refusal(for: method) == nil, "\(method) is safe")
            #expect(RouteAccess.reader.refusal(for: method) == nil)
        }
        for method in [HTTPMethod.POST, .PUT, .PATCH, .DELETE, HTTPMethod("PURGE")] {
            #expect(RouteAccess.public.refusal(for: method) != nil, "\(method)")
            #expect(RouteAccess.reader.refusal(for: method) != nil, "\(method)")
            #expect(RouteAccess.token(.writer).refusal(for: method) == nil)
            #expect(RouteAccess.write(.writer, dryRun: .reader).refusal(for: method) == nil)
            #expect(RouteAccess.evaluation.refusal(for: method) == nil)
            #expect(RouteAccess.unscoped(.admin).refusal(for: method) == nil)
            #expect(RouteAccess.signedPayload.refusal(for: method) == nil, "the body's signature is checked")
        }
    }

    @Test func onlyRolesReadTheStore() {
        #expect(RouteAccess.token(.reader).checksStore)
        #expect(RouteAccess.write(.writer, dryRun: .reader).checksStore)
        #expect(RouteAccess.unscoped(.admin).checksStore)
        #expect(!RouteAccess.reader.checksStore, "readers use the in-memory table")
        #expect(!RouteAccess.public.checksStore && !RouteAccess.evaluation.checksStore)
        #expect(!RouteAccess.signedPayload.checksStore, "Apple sends no token")
    }

    @Test func signedPayloadsAndRolesNeedAnAuditDecision() {
        #expect(RouteAccess.signedPayload.requiresAudit)
        #expect(RouteAccess.token(.writer).requiresAudit && RouteAccess.unscoped(.admin).requiresAudit)
        #expect(RouteAccess.write(.writer, dryRun: .reader).requiresAudit)
        #expect(!RouteAccess.public.requiresAudit && !RouteAccess.reader.requiresAudit && !RouteAccess.evaluation.requiresAudit)
    }
}
