import HTTPServer
import Glibc

// Serves a fixed 750-byte JSON document with an ETag on every path, for Benchmarks/http-vs-nginx.sh.
// Usage: http-bench-server PORT [LOOPS] [BODYFILE]; LISTENER=reuseport for a SO_REUSEPORT listener per loop.

let arguments = CommandLine.arguments
let port = arguments.count > 1 ? Int(arguments[1]) ?? 8081 : 8081
let loops = arguments.count > 2 ? Int(arguments[2]) : nil

/// The document: 750 bytes of JSON, the same bytes nginx serves as a static file.
func benchmarkDocument() -> [UInt8] {
    var text = #"{"version":42,"etag":"\"v42\"","flags":{"monetizationEnabled":false,"premiumFeaturesLocked":false,"#
    text += #""showIntroFreeSubscriptionBanner":true,"subscriptionPriceIncreaseMessagingEnabled":false,"padding":""#
    while text.utf8.count < 750 - 3 { text += "x" }
    text += "\"}\n"
    return Array(text.utf8)
}

let body = benchmarkDocument()
if arguments.count > 3 {
    // Write the document for nginx to serve.
    let fd = open(arguments[3], O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    if fd >= 0 {
        _ = body.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
}
let response = HTTPResponse.json(body, headers: ["ETag": "\"v42\"", "Cache-Control": "no-cache"]).encodingHead()

struct Fixed: HTTPHandler {
    let response: HTTPResponse
    func handle(_ request: HTTPRequest, context: HTTPRequestContext, responder: HTTPResponder) {
        responder.respond(response)
    }
}

let listener: HTTPServerConfiguration.Listener = getenv("LISTENER").map { String(cString: $0) } == "reuseport" ? .reusePortPerLoop : .shared
let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: port, eventLoops: loops, listener: listener, backlog: 4096,
                                                               limits: { var l = HTTPServerConfiguration.Limits(); l.maxConnections = 60_000; return l }()),
                        handler: Fixed(response: response))
do {
    let bound = try server.start()
    print("listening on 127.0.0.1:\(bound)")
    fflush(nil)
} catch {
    print("cannot start: \(error)")
    exit(1)
}
server.waitUntilStopped()
