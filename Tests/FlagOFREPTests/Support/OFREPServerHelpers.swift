import FlagOFREP
import Glibc
import HTTPServer

/// Starts a server on 127.0.0.1 port 0 with ONLY the OFREP routes, runs `body`, and always shuts it down.
func withOFREPServer<T>(_ configuration: OFREPRouteConfiguration, _ body: (Int) throws -> T) throws -> T {
    var builder = HTTPRouter.Builder()
    OFREPRoutes.register(in: &builder, configuration: configuration)
    let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 2),
                            handler: try builder.build())
    let port = try server.start()
    defer { server.shutdown(gracePeriod: .seconds(2)) }
    return try body(port)
}
