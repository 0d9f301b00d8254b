/// Routes requests by method and path pattern (`/v1/environments/{env}/flags/{key}`). Built once with
/// `HTTPRouter.Builder`, then immutable. Unknown paths get 404; known paths with another method get 405
/// with `Allow`. `HEAD` is served by the `GET` route when no `HEAD` route exists (RFC 9110 §9.3.2).
///
/// A final class, not a struct: the server calls it through `any HTTPHandler` for every request, and
/// calling a struct existential copied it (a retain and release of each stored property) every time.
public final class HTTPRouter: HTTPHandler, Sendable {
    /// One segment of a pattern.
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    /// All routes of one pattern (a class: a match hands out one reference, not a copy of six fields).
    final class Entry: Sendable {
        let pattern: String
        let segments: [Segment]
        let handlers: [HTTPMethod: any HTTPHandler]
        let allow: [HTTPMethod]
        /// Each literal segment's UTF-8 bytes (empty for parameters), compared without building strings.
        let literalBytes: [[UInt8]]
        /// `handlers` as two lists searched by index: a route has one to three methods, comparing a few
        /// short strings is cheaper than hashing one, and iterating (method, handler) tuples copied each
        /// (a retain of the string and of the handler). `GET`, most requests, has its own slot.
        let methods: [HTTPMethod]
        let methodHandlers: [Handler]
        let getHandler: Handler?
        /// Whether any segment is a parameter (a static route's match fills no parameters).
        let hasParameters: Bool

        init(pattern: String, segments: [Segment], handlers: [HTTPMethod: any HTTPHandler], allow: [HTTPMethod]) {
            self.pattern = pattern
            self.segments = segments
            self.handlers = handlers
            self.allow = allow
            literalBytes = segments.map { if case .literal(let l) = $0 { Array(l.utf8) } else { [] } }
            let list = allow.compactMap { method in handlers[method].map { (method: method, handler: $0) } }
            methods = list.map(\.method)
            methodHandlers = list.map { Handler($0.handler) }
            getHandler = handlers[.GET].map(Handler.init)
            hasParameters = segments.contains { if case .parameter = $0 { true } else { false } }
        }

        /// The handler for `method`, or nil.
        func handler(for method: HTTPMethod) -> Handler? {
            if method == .GET { return getHandler }
            var i = 0
            while i < methods.count {
                if methods[i] == method { return methodHandlers[i] }
                i += 1
            }
            return nil
        }
    }

    /// A route's handler in a box: handing out a class reference is one retain, while returning the
    /// `any HTTPHandler` itself copies the existential through its value witnesses.
    final class Handler: Sendable {
        let handler: any HTTPHandler

        init(_ handler: any HTTPHandler) { self.handler = handler }
    }

    let staticEntries: [String: Entry]
    /// The patterns with parameters, in the order they are tried (literals first where two first differ).
    let parameterEntries: [Entry]
    /// All patterns as a tree: what requests are matched against.
    let tree: Tree
    /// The body limits the routes declared (`Builder.limitBody`); the server applies them with its own.
    public let bodyLimits: [HTTPBodyLimit]

    init(staticEntries: [String: Entry], parameterEntries: [Entry], bodyLimits: [HTTPBodyLimit] = []) {
        self.staticEntries = staticEntries
        self.parameterEntries = parameterEntries
        self.bodyLimits = bodyLimits
        // A static pattern is all literals, so the walk finds it before any pattern with a parameter, as the
        // lookup of static paths before the others did.
        tree = Tree(parameterEntries + staticEntries.values.sorted { $0.pattern < $1.pattern })
    }

    /// Collects routes; `build()` checks them and freezes the router.
    public struct Builder: Sendable {
        var routes: [(method: HTTPMethod, pattern: String, handler: any HTTPHandler)] = []
        var bodyLimits: [HTTPBodyLimit] = []

        /// An empty builder.
        public init() {}

        /// Gives `path` (and the paths below it) a body limit of its own, below the server's `maxBodyBytes`:
        /// a larger body is refused with 413 on its head, unread (`HTTPBodyLimit`).
        public mutating func limitBody(path: String, maxBytes: Int) {
            bodyLimits.append(HTTPBodyLimit(path: path, maxBytes: maxBytes))
        }

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
            return HTTPRouter(staticEntries: statics, parameterEntries: params, bodyLimits: bodyLimits)
        }
    }

    /// The entry whose pattern matches the path (path parameters go into `context`), or the refusal: 404,
    /// or 400 for a malformed escape in a parameter.
    @inline(__always)
    func entry(for request: HTTPRequest, _ context: inout HTTPRequestContext) -> Result<Entry, HTTPError> {
        switch request.withPathBytes({ matchParameters($0) }) {
        case .none:
            return .failure(.notFound(request.path))
        case .some(.failure(let error)):
            return .failure(error)
        case .some(.success(let (e, parameters))):
            context.pathParameters = parameters
            return .success(e)
        }
    }

    /// Asks the matching route's handler about a head with a body; an unknown path or method is answered
    /// (404/405) at once, without reading the body.
    public func checkHead(_ request: HTTPRequest, context: HTTPRequestContext) -> HTTPResponse? {
        var context = context
        switch entry(for: request, &context) {
        case .failure(let error):
            return error.response
        case .success(let entry):
            guard let route = entry.handler(for: request.method) else {
                return HTTPError.methodNotAllowed(request.method, allowed: entry.allow).response
            }
            return route.handler.checkHead(request, context: context)
        }
    }

    /// Dispatches to the matching route, or answers 404/405 (400 for a malformed escape in a parameter).
    public func handle(_ request: HTTPRequest, context: HTTPRequestContext, responder: HTTPResponder) {
        var context = context
        route(request, context: &context, responder: responder)
    }

    /// A connection's last match: keep-alive clients ask for the same path again and again (an app polling its
    /// document, a proxy's upstream connection), and the same path matches the same route with the same
    /// parameters. Only matches are kept.
    struct Match {
        var path: String?
        var entry: Entry?
        var parameters = HTTPPathParameters()
    }

    /// `handle` with the caller's context, which receives the path parameters, and the connection's last match:
    /// the server calls this for every request, without the copy of the context `handle` makes.
    func route(_ request: HTTPRequest, context: inout HTTPRequestContext, responder: HTTPResponder, last: inout Match) {
        let entry: Entry
        if let cached = last.entry, let path = last.path, request.hasPath(path) {
            entry = cached
            context.pathParameters = last.parameters
        } else {
            switch self.entry(for: request, &context) {
            case .failure(let error):
                responder.fail(error)
                return
            case .success(let found):
                entry = found
                last = Match(path: request.path, entry: found, parameters: context.pathParameters)
            }
        }
        dispatch(request, to: entry, context: context, responder: responder)
    }

    /// `handle` with the caller's context (no match kept).
    func route(_ request: HTTPRequest, context: inout HTTPRequestContext, responder: HTTPResponder) {
        switch self.entry(for: request, &context) {
        case .failure(let error):
            responder.fail(error)
        case .success(let entry):
            dispatch(request, to: entry, context: context, responder: responder)
        }
    }

    /// Calls the route's handler for the method (GET's for HEAD when there is no HEAD route), or answers 405.
    @inline(__always)
    private func dispatch(_ request: HTTPRequest, to entry: Entry, context: HTTPRequestContext, responder: HTTPResponder) {
        if let route = entry.handler(for: request.method) {
            route.handler.handle(request, context: context, responder: responder)
        } else if request.method == .HEAD, let route = entry.handler(for: .GET) {
            route.handler.handle(request, context: context, responder: responder)
        } else {
            responder.fail(.methodNotAllowed(request.method, allowed: entry.allow))
        }
    }

    /// The routes' patterns and methods, for documentation and tests.
    public var routes: [(method: HTTPMethod, pattern: String)] {
        (Array(staticEntries.values) + parameterEntries).flatMap { e in e.handlers.keys.map { ($0, e.pattern) } }
    }

    /// The handler registered for `method` on `pattern` (as written at registration), for documentation and
    /// tests: a service can read back what its handlers declare (FlagService: each route's access).
    public func handler(_ method: HTTPMethod, _ pattern: String) -> (any HTTPHandler)? {
        (staticEntries[pattern] ?? parameterEntries.first { $0.pattern == pattern })?.handlers[method]
    }

    /// The route whose pattern matches `path` segment by segment (literals exactly, parameters any
    /// non-empty segment, percent-decoded), with its parameters. Walks the path's bytes in place along the
    /// tree of patterns (`Node`).
    func matchParameters(_ path: String) -> Result<(Entry, HTTPPathParameters), HTTPError>? {
        var path = path
        return path.withUTF8 { bytes in matchParameters(bytes) }
    }

    func matchParameters(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<(Entry, HTTPPathParameters), HTTPError>? {
        guard let first = bytes.first, first == 0x2F else { return nil }
        return withUnsafeTemporaryAllocation(of: (Int, Int).self, capacity: Tree.notedParameters) { ranges in
            guard let places = ranges.baseAddress else { return nil }
            switch tree.match(bytes, ranges: places) {
            case .none:
                return nil
            case .malformed(let name):
                return .failure(HTTPError(.badRequest, code: "malformed_path", message: "bad percent-encoding in \(name)"))
            case .matched(let index):
                let entry = tree.entries[index]
                return .success((entry, HTTPRouter.parameters(of: entry, in: bytes, ranges: places)))
            }
        }
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
