import HTTPServer

/// The API's routes: one ordered list of route controllers, each built once here with what it depends on.
extension FlagService {
    /// The router with every route of the API, each with its declared access (`RouteAccess`, enforced by
    /// `RouteGuard`) and, for a write, its audit action (`RouteAudit`). Throws when a route's access or audit
    /// is not allowed for it.
    public func makeRouter() throws(HTTPError) -> HTTPRouter {
        var routes = ServiceRoutes(metrics: metrics, routeGuard: routeGuard, work: work, writer: writer)
        for controller in controllers() { controller.addRoutes(to: &routes) }
        return try routes.build()
    }

    /// The controllers, in the order their routes are added.
    func controllers() -> [any RouteController] {
        let impactSamples = ImpactSampleCache()
        let answers = WriteAnswer(work: work, impactSample: options.changeImpactSample, impactSamples: impactSamples)
        return [
            DocumentsController(store: store, snapshots: snapshots, writer: writer, policies: policies, events: events,
                                routeGuard: routeGuard, answers: answers, reachability: node.reachability),
            OperationsController(store: store, snapshots: snapshots, writer: writer, readiness: readiness,
                                 reachability: node.reachability, metrics: metrics,
                                 routeGuard: routeGuard, logger: logger, server: server, console: options.console,
                                 requireReadToken: options.requireReadToken),
            ChangesController(store: store, snapshots: snapshots, writer: writer, scheduler: scheduler, policies: policies,
                              webhooks: webhooks, routeGuard: routeGuard, logger: logger, answers: answers,
                              impactSamples: impactSamples),
            OFREPController(snapshots: snapshots, authenticator: authenticator, routeGuard: routeGuard, options: options.ofrep,
                            requireReadToken: options.requireReadToken, trustedProxies: options.trustedProxies),
            AdministrationController(store: store, snapshots: snapshots, authenticator: authenticator, webhooks: webhooks,
                                     routeGuard: routeGuard, logger: logger),
            AppStoreController(store: store, snapshots: snapshots, writer: writer, options: options.appStore, metrics: metrics.appStore,
                               routeGuard: routeGuard, logger: logger),
            GuardsController(store: store, snapshots: snapshots, writer: writer, scheduler: scheduler, webhooks: webhooks,
                             routeGuard: routeGuard, logger: logger, clock: options.guardClock),
            OfferSignaturesController(snapshots: snapshots, signer: options.appStore.offerSigner, metrics: metrics, logger: logger),
        ]
    }
}
