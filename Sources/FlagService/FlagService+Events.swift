import HTTPServer

/// `GET /v1/environments/{env}/events`: the change notification stream (`docs/api.md`).
extension FlagService {
    /// The events path of `environment`, announced by OFREP as its event stream.
    static func eventsPath(_ environment: String) -> String { "/v1/environments/\(environment)/events" }

    func registerEvents(into routes: inout ServiceRoutes) {
        // The same reader rules as the document GET; a stream keeps the connection's own responder.
        routes.stream(.GET, "/v1/environments/{env}/events", access: .reader) { [self] request, context, _, responder in
            try openEvents(request, context, responder)
        }
    }

    /// A stream subscribed to the environment. A `Last-Event-ID` (WHATWG HTML §9.2.4: the id of the last
    /// event the client saw) naming another version than the current one gets the current version's event
    /// at once, so a reconnecting client misses nothing.
    func openEvents(_ request: HTTPRequest, _ context: HTTPRequestContext, _ responder: HTTPResponder) throws(ServiceError) {
        let name = try environment(context)
        let head = HTTPResponse(status: .ok, headers: [
            .contentType: "text/event-stream", .cacheControl: "no-cache",
            // nginx passes the stream on unbuffered whatever its proxy_buffering says.
            .xAccelBuffering: "no", .vary: HTTPHeaderName.authorization.rawValue,
        ])
        guard let stream = responder.openStream(head, heartbeat: EventHub.heartbeat) else { return }
        stream.send(events.preamble)
        events.subscribe(stream, environment: name)
        if let field = request.headers[.lastEventID], let seen = Int(HTTPHeaders.trimmed(Substring(field))),
           let snapshot = snapshots.snapshot(name), seen != snapshot.version {
            stream.send(EventHub.event(snapshot))
        }
    }
}
