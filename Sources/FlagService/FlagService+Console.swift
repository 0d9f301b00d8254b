import HTTPServer

/// `GET /console`, `/console/` and `/console/{file}`: the ops console's static files (`docs/console.md`),
/// answered on the loop thread from the responses `ConsoleAssets` built at start.
extension FlagService {
    func registerConsole(into routes: inout ServiceRoutes) {
        let assets = options.console
        let index: ServiceRoutes.SyncBody = { _, _, _ in
            assets?.response(for: ConsoleAssets.indexFile) ?? ConsoleAssets.notInstalled()
        }
        // Public: static files only; everything the console does goes through the API with the signed-in token.
        routes.sync(.GET, "/console", access: .public, index)
        routes.sync(.GET, "/console/", access: .public, index)
        routes.sync(.GET, "/console/{file}", access: .public) { _, context, _ in
            guard let assets else { return ConsoleAssets.notInstalled() }
            return assets.response(for: context.pathParameters["file"] ?? "")
        }
    }
}
