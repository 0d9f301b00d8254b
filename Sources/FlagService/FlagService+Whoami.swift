import FlagKit
import HTTPServer

/// `GET /v1/whoami`: the name and role of the bearer token, so the console can say who is signed in and
/// offer only what the role allows. Checked against the database (like writes), so a revoked token is
/// refused at once rather than after the read-token table's next reload.
extension FlagService {
    func registerWhoami(into routes: inout ServiceRoutes) {
        routes.deferred(.GET, "/v1/whoami") { [self] request, _, responder in
            offLoop(responder) { [self] in
                let token = try authenticator.requireFresh(request, role: .reader)
                return Self.json(["name": .string(token.name), "role": .string(token.role.rawValue),
                                  "readsArePublic": .bool(!options.requireReadToken)],
                                 headers: [.cacheControl: "no-store", .vary: HTTPHeaderName.authorization.rawValue])
            }
        }
    }
}
