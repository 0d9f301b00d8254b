import HTTPServer

/// `GET /console`, `/console/` and `/console/{file}`: the ops console's static files (`docs/console.md`),
/// answered on the loop thread from the responses `ConsoleAssets` built at start.
extension FlagService {
    func registerConsole(into routes: inout ServiceRoutes) {
        let assets = options.console
        let index: @Sendable (HTTPRequest, HTTPRequestContext) throws -> HTTPResponse = { _, _ in
            assets?.response(for: ConsoleAssets.indexFile) ?? ConsoleAssets.notInstalled()
        }
        routes.sync(.GET, "/console", index)
        routes.sync(.GET, "/console/", index)
        routes.sync(.GET, "/console/{file}") { _, context in
            guard let assets else { return ConsoleAssets.notInstalled() }
            return assets.response(for: context.pathParameters["file"] ?? "")
        }
    }
}
