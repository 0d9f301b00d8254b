import FlagKit
import HTTPServer

/// `GET /v1/whoami`: the name and role of the bearer token, so the console can say who is signed in and
/// offer only what the role allows. Checked against the database (like writes), so a revoked token is
/// refused at once rather than after the read-token table's next reload.
extension FlagService {
    func registerWhoami(into routes: inout ServiceRoutes) {
        routes.deferred(.GET, "/v1/whoami", access: .token(.reader)) { [self] _, _, token, _ in
            let token = try RouteGuard.required(token)
            return Self.json(["name": .string(token.name), "role": .string(token.role.rawValue),
                              "readsArePublic": .bool(!options.requireReadToken)],
                             headers: [.cacheControl: "no-store", .vary: HTTPHeaderName.authorization.rawValue])
        }
    }
}
