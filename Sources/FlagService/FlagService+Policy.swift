import FlagKit
import FlagStore
import Foundation
import HTTPServer

/// `GET`/`PUT /v1/environments/{env}/policy` (`docs/governance.md`, "Policies"), and seeding policies from
/// `flags/policy/<env>.json` at first start.
extension FlagService {
    func registerPolicy(into routes: inout ServiceRoutes) {
        routes.deferred(.GET, "/v1/environments/{env}/policy", access: .reader) { [self] _, context, _, _ in
            let name = try environment(context)
            let record = try Self.storing { try store.policyRecord(environment: name) }
            return Self.json(Self.policyMembers(record), headers: [.cacheControl: "no-store"])
        }

        routes.deferred(.PUT, "/v1/environments/{env}/policy", access: .token(.admin)) { [self] request, context, token, _ in
            let name = try environment(context)
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
                let record = try Self.storing {
                    try store.setPolicy(environment: name, policy: policy, actor: token.name,
                                        client: routeGuard.clientAddress(request, context))
                }
                policies.install(record.policy, environment: name)
                return record
            }
            logger.log(.info, "policy_updated", ["env": name, "by": token.name])
            let members = Self.policyMembers(record)
            notify("policy.updated", environment: name, data: members)
            return Self.json(members)
        }
    }

    /// `{"environment", "policy", "updatedAt", "updatedBy"}` (the two last null for the default policy).
    static func policyMembers(_ record: PolicyRecord) -> [String: JSONValue] {
        ["environment": .string(record.environment), "policy": record.policy.jsonValue,
         "updatedAt": record.updatedAtMilliseconds.map { .string(RFC3339.string(milliseconds: $0)) } ?? .null,
         "updatedBy": record.updatedBy.map(JSONValue.string) ?? .null]
    }

    /// For every `NAME.json` in `directory` (`flags/policy`): sets environment `NAME`'s policy when none was ever
    /// set (the store, not the directory, is the truth after that: `PUT .../policy` changes it). Every file is
    /// decoded first; an invalid one, or one naming an environment that does not exist, stops the start with
    /// nothing set. A missing directory is no policy files. Returns the environments whose policy was seeded.
    @discardableResult
    public static func seedPolicies(store: FlagStore, policyDirectory directory: String,
                                    logger: ServiceLogger = ServiceLogger()) throws(ServiceStartError) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else { return [] }
        var policies: [(environment: String, path: String, policy: EnvironmentPolicy)] = []
        for file in try jsonFiles(in: directory) {
            do {
                policies.append((file.environment, file.path, try EnvironmentPolicy.decode(file.bytes)))
            } catch {
                throw .invalidPolicyFile(path: file.path, reason: error.description)
            }
        }
        var seeded: [String] = []
        do {
            let existing = Set(try store.environments())
            for entry in policies {
                guard existing.contains(entry.environment) else {
                    throw ServiceStartError.invalidPolicyFile(path: entry.path, reason: "there is no environment '\(entry.environment)'")
                }
                if try store.seedPolicy(environment: entry.environment, policy: entry.policy, actor: "flagserver") {
                    logger.log(.info, "policy_seeded", ["env": entry.environment, "file": entry.path])
                    seeded.append(entry.environment)
                }
            }
        } catch let error as ServiceStartError {
            throw error
        } catch {
            throw .store(error)
        }
        return seeded
    }
}
