import FlagKit
import FlagStore
import HTTPServer

/// `GET`/`PUT /v1/environments/{env}/policy` (`docs/governance.md`, "Policies").
extension ChangesController {
    func addPolicy(to routes: inout ServiceRoutes) {
        routes.deferred(.GET, "/v1/environments/{env}/policy", access: .reader) { [self] _, context, _, _ in
            let name = try snapshots.requestedEnvironment(context)
            let record = try ServiceError.storing { try store.policyRecord(environment: name) }
            return Self.json(Self.policyMembers(record), headers: [.cacheControl: "no-store"])
        }

        routes.deferred(.PUT, "/v1/environments/{env}/policy", access: .token(.admin),
                        audit: .action("policy.update")) { [self] request, context, token, _ in
            let name = try snapshots.requestedEnvironment(context)
            let token = try RouteGuard.required(token)
            try Self.requireJSONContentType(request)
            guard !request.body.isEmpty else { throw ServiceError.badRequest("empty_body", "the request needs a JSON body") }
            let policy: EnvironmentPolicy
            do throws(FlagDocumentError) {
                policy = try EnvironmentPolicy.decode(request.body)
            } catch {
                switch error {
                case .malformedJSON(let syntax): throw ServiceError.malformedJSON(syntax)
                case .invalid(let issues):
                    throw ServiceError(.unprocessableContent, code: "invalid_policy",
                                       message: "the policy has \(issues.count) problem\(issues.count == 1 ? "" : "s")", details: issues)
                }
            }
            // Commit and install under one lock, so two racing updates leave the table as the database is.
            let record = try policies.updates.withLock { _ throws(ServiceError) -> PolicyRecord in
                let record = try ServiceError.storing {
                    try store.setPolicy(environment: name, policy: policy, actor: token.name,
                                        client: routeGuard.clientAddress(request, context))
                }
                policies.install(record.policy, environment: name)
                return record
            }
            logger.log(.info, "policy_updated", ["env": name, "by": token.name])
            let members = Self.policyMembers(record)
            webhooks.submit("policy.updated", environment: name, data: members)
            return Self.json(members)
        }
    }

    /// `{"environment", "policy", "updatedAt", "updatedBy"}` (the two last null for the default policy).
    static func policyMembers(_ record: PolicyRecord) -> [String: JSONValue] {
        ["environment": .string(record.environment), "policy": record.policy.jsonValue,
         "updatedAt": record.updatedAtMilliseconds.map { .string(RFC3339.string(milliseconds: $0)) } ?? .null,
         "updatedBy": record.updatedBy.map(JSONValue.string) ?? .null]
    }
}
