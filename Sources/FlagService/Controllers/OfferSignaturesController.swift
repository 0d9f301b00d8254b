import AppStoreNotifications
import FlagKit
import FlagStore
import HTTPServer

/// `POST /v1/environments/{env}/offer-signatures` (docs/api.md, "Offer signatures"; docs/guards.md, "Running an
/// experiment"): the signature StoreKit needs to show an experiment arm's promotional offer to a current or lapsed
/// subscriber, made with the In-App Purchase key of `--appstore-offer-key` (`PromotionalOfferSigner`).
///
/// Any token that may read the environment: reader tokens ship in the app, so a request may come from anyone who
/// unpacked it. That is why only an offer an arm names is signed (the default value or a rule's value of the string
/// flag equals `product/offer` in the current document): a reader token cannot mint an arbitrary discount. The
/// document is the in-memory snapshot (no store read beyond the token's); signing runs on the work queue, never on a
/// loop. Nothing is audited (it changes nothing); each answer is counted in `flagserver_offer_signatures_total`.
struct OfferSignaturesController: RouteController {
    /// The route's pattern.
    static let pattern = "/v1/environments/{env}/offer-signatures"

    /// The current documents.
    let snapshots: SnapshotStore
    /// The key; nil: no `--appstore-offer-key` (503).
    let signer: PromotionalOfferSigner?
    /// Where the outcomes are counted.
    let metrics: ServiceMetrics
    let logger: ServiceLogger

    /// 503 while the server has no offer key. No `Retry-After`: it is configuration, not load.
    static let unavailable = ServiceError(.serviceUnavailable, code: "offer_signing_unavailable",
                                          message: "this server has no promotional offer key (--appstore-offer-key)")

    func addRoutes(to routes: inout ServiceRoutes) {
        routes.deferred(.POST, Self.pattern, access: .token(.reader),
                        audit: .exempt("a signature changes nothing; counted in /metrics instead")) { [self] request, context, token, _ in
            do {
                let answer = try sign(request, context, token)
                metrics.offerSignaturesSigned.add(1, ordering: .relaxed)
                return answer
            } catch {
                metrics.offerSignaturesRefused.add(1, ordering: .relaxed)
                throw error
            }
        }
    }

    /// The answer to one request: 200 with the signature, or the refusal (404 unknown environment or
    /// `offer_not_in_experiment`, 415, 400, 422 `invalid_request`, 503 `offer_signing_unavailable`).
    func sign(_ request: HTTPRequest, _ context: HTTPRequestContext, _ token: TokenRecord?) throws(ServiceError) -> HTTPResponse {
        let environment = try snapshots.requestedEnvironment(context)
        try Self.requireJSONContentType(request)
        let body = try OfferSignatureRequest(body: try Self.parseJSON(request.body))
        guard let signer else { throw Self.unavailable }
        let arms = Self.arms(of: snapshots.snapshot(environment)?.document.flags[body.flag])
        guard arms.contains(body.armValue) else {
            let named = arms.isEmpty ? "no arms" : "arms " + arms.joined(separator: ", ")
            throw ServiceError(.notFound, code: "offer_not_in_experiment",
                               message: "no arm of \(body.flag) in \(environment) names \(body.armValue) (\(named))",
                               extra: ["flag": .string(body.flag), "arms": .array(arms.map { .string($0) })])
        }
        let signed: PromotionalOfferSignature
        do {
            signed = try signer.sign(productID: body.product, offerID: body.offer, appAccountToken: body.appAccountToken)
        } catch {
            logger.log(.error, "offer_signing_failed", ["env": environment, "product": body.product, "offer": body.offer,
                                                        "error": error.description])
            throw ServiceError(.internalServerError, code: "signing_failed", message: "the offer could not be signed; see the server log")
        }
        logger.log(.debug, "offer_signed", ["env": environment, "product": body.product, "offer": body.offer,
                                            "nonce": signed.nonce, "by": token?.name ?? "-"])
        return Self.json(signed.members, headers: [.cacheControl: "no-store"])
    }

    /// The values `flag`'s arms name: every rule's value, then the default's, the non-empty strings, each once (the
    /// order of the experiment report, `ExperimentSplit`); none for a missing flag or one that is not a string flag.
    static func arms(of flag: Flag?) -> [String] {
        guard let flag, flag.type == .string else { return [] }
        var values: [String] = []
        for value in flag.rules.map(\.value) + [flag.defaultValue] {
            if case .string(let text) = value, !text.isEmpty, !values.contains(text) { values.append(text) }
        }
        return values
    }
}
