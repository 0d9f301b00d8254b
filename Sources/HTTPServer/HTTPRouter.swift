/// Routes requests by method and path pattern (`/v1/environments/{env}/flags/{key}`). Built once with
/// `HTTPRouter.Builder`, then immutable. Unknown paths get 404; known paths with another method get 405
/// with `Allow`. `HEAD` is served by the `GET` route when no `HEAD` route exists (RFC 9110 §9.3.2).
public struct HTTPRouter: HTTPHandler {
    /// One segment of a pattern.
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    /// All routes of one pattern.
    struct Entry: Sendable {
        let pattern: String
        let segments: [Segment]
        let handlers: [HTTPMethod: any HTTPHandler]
        let allow: [HTTPMethod]
    }

    let staticEntries: [String: Entry]
    let parameterEntries: [Entry]

    /// Collects routes; `build()` checks them and freezes the router.
    public struct Builder: Sendable {
        var routes: [(method: HTTPMethod, pattern: String, handler: any HTTPHandler)] = []

        /// An empty builder.
        public init() {}

        /// Adds a route served by any `HTTPHandler`.
        public mutating func add(_ method: HTTPMethod, _ pattern: String, handler: any HTTPHandler) {
            routes.append((method, pattern, handler))
        }

        /// Adds a route with a synchronous closure (runs on the loop thread; keep it short).
        public mutating func add(_ method: HTTPMethod, _ pattern: String, _ body: @escaping HTTPSyncHandlerFunction) {
            add(method, pattern, handler: HTTPSyncHandler(body))
        }

        /// Adds a route with an `async` closure (runs in a `Task`).
        public mutating func addAsync(_ method: HTTPMethod, _ pattern: String, _ body: @escaping HTTPAsyncHandlerFunction) {
            add(method, pattern, handler: HTTPAsyncHandler(body))
        }

        /// Adds a route whose closure gets the responder and answers later from any thread.
        public mutating func addDeferred(_ method: HTTPMethod, _ pattern: String, _ body: @escaping HTTPDeferredHandlerFunction) {
            add(method, pattern, handler: HTTPDeferredHandler(body))
        }

        /// Checks every pattern (must start with `/`, parameters are whole segments with distinct names)
        /// and refuses duplicate method + pattern pairs and patterns that differ only in parameter names.
        public func build() throws(HTTPError) -> HTTPRouter {
            var byShape: [String: (pattern: String, segments: [Segment], handlers: [HTTPMethod: any HTTPHandler], order: [HTTPMethod])] = [:]
            var shapeOrder: [String] = []
            for route in routes {
                let segments = try HTTPRouter.parse(pattern: route.pattern)
                let shape = segments.map { if case .literal(let l) = $0 { "L" + l } else { "{}" } }.joined(separator: "/")
                var entry = byShape[shape] ?? (route.pattern, segments, [:], [])
                if entry.pattern != route.pattern {
                    throw HTTPError.router("pattern \(route.pattern) clashes with \(entry.pattern)")
                }
                if entry.handlers[route.method] != nil {
                    throw HTTPError.router("duplicate route \(route.method) \(route.pattern)")
                }
                if byShape[shape] == nil { shapeOrder.append(shape) }
                entry.handlers[route.method] = route.handler
                entry.order.append(route.method)
                byShape[shape] = entry
            }
            var statics: [String: Entry] = [:]
            var params: [Entry] = []
            for shape in shapeOrder {
                guard let e = byShape[shape] else { continue }
                var allow = e.order
                if e.handlers[.GET] != nil && e.handlers[.HEAD] == nil { allow.append(.HEAD) }
                let entry = Entry(pattern: e.pattern, segments: e.segments, handlers: e.handlers, allow: allow)
                if e.segments.allSatisfy({ if case .literal = $0 { true } else { false } }) {
                    statics[e.pattern] = entry
                } else {
                    params.append(entry)
                }
            }
            // Literal segments win over parameters at the first place two patterns differ.
            params.sort { a, b in
                for (x, y) in zip(a.segments, b.segments) {
                    switch (x, y) {
                    case (.literal, .parameter): return true
                    case (.parameter, .literal): return false
                    default: continue
                    }
                }
                return a.segments.count < b.segments.count
            }
            return HTTPRouter(staticEntries: statics, parameterEntries: params)
        }
    }

    /// Dispatches to the matching route, or answers 404/405 (400 for a malformed escape in a parameter).
    public func handle(_ request: HTTPRequest, context: HTTPRequestContext, responder: HTTPResponder) {
        let entry: Entry
        var context = context
        if let e = staticEntries[request.path] {
            entry = e
        } else {
            switch matchParameters(request.path) {
            case .none:
                responder.fail(.notFound(request.path))
                return
            case .some(.failure(let error)):
                responder.fail(error)
                return
            case .some(.success(let (e, parameters))):
                entry = e
                context.pathParameters = parameters
            }
        }
        if let handler = entry.handlers[request.method] {
            handler.handle(request, context: context, responder: responder)
        } else if request.method == .HEAD, let handler = entry.handlers[.GET] {
            handler.handle(request, context: context, responder: responder)
        } else {
            responder.fail(.methodNotAllowed(request.method, allowed: entry.allow))
        }
    }

    /// The routes' patterns and methods, for documentation and tests.
    public var routes: [(method: HTTPMethod, pattern: String)] {
        (Array(staticEntries.values) + parameterEntries).flatMap { e in e.handlers.keys.map { ($0, e.pattern) } }
    }

    func matchParameters(_ path: String) -> Result<(Entry, HTTPPathParameters), HTTPError>? {
        let parts = path.utf8.split(separator: 0x2F, omittingEmptySubsequences: false).dropFirst()
        candidates: for entry in parameterEntries where entry.segments.count == parts.count {
            var pairs: [(name: String, value: String)] = []
            for (segment, part) in zip(entry.segments, parts) {
                switch segment {
                case .literal(let literal):
                    guard literal.utf8.elementsEqual(part) else { continue candidates }
                case .parameter(let name):
                    guard !part.isEmpty else { continue candidates }
                    guard let value = HTTPRequest.percentDecode(Substring(part)) else {
                        return .failure(HTTPError(.badRequest, code: "malformed_path", message: "bad percent-encoding in \(name)"))
                    }
                    pairs.append((name, value))
                }
            }
            return .success((entry, HTTPPathParameters(pairs)))
        }
        return nil
    }

    static func parse(pattern: String) throws(HTTPError) -> [Segment] {
        guard pattern.hasPrefix("/") else { throw HTTPError.router("pattern \(pattern) must start with /") }
        var names = Set<String>()
        var segments: [Segment] = []
        for part in pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            if part.hasPrefix("{") && part.hasSuffix("}") && part.count > 2 {
                let name = String(part.dropFirst().dropLast())
                guard !name.contains("{") && !name.contains("}"), names.insert(name).inserted else {
                    throw HTTPError.router("bad or repeated parameter {\(name)} in \(pattern)")
                }
                segments.append(.parameter(name))
            } else if part.contains("{") || part.contains("}") {
                throw HTTPError.router("parameters must be whole segments in \(pattern)")
            } else {
                segments.append(.literal(String(part)))
            }
        }
        return segments
    }
}

extension HTTPError {
    /// A route table that cannot be built.
    static func router(_ message: String) -> HTTPError {
        HTTPError(.internalServerError, code: "router", message: message)
    }
}
