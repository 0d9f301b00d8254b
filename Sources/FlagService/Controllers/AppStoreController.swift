import AppStoreNotifications
import FlagKit
import FlagStore
import HTTPServer
import ServerLock

/// App Store Server Notifications V2 (`docs/appstore.md`, "Receiving notifications"; `docs/api.md`, "App Store"):
/// the receiver Apple's server posts to, and the reads of what it kept (`AppStoreController+Reads.swift`).
///
/// The receiver takes no token (Apple sends none): the body proves itself, a JWS whose chain must lead to a
/// configured root (`RouteAccess.signedPayload`). Verification (X.509 and ECDSA) runs on the work queue, never on a
/// loop; the record is stored by the writer, which commits the notifications that arrived together in one
/// transaction, and the 200 is sent only after that commit (Apple retries anything else).
struct AppStoreController: RouteController {
    /// The receiver's path (the URL entered in App Store Connect).
    static let notificationsPath = "/v1/appstore/notifications"
    /// Apple's notifications are a few KiB; a larger body is refused on its head, unread (`HTTPBodyLimit`).
    static let maxBodyBytes = 64 * 1024

    /// The store the reads query and whose subscription hash key the records are made with.
    let store: FlagStore
    /// The current documents, whose flags the experiment route reads its split from.
    let snapshots: SnapshotStore
    /// Stores the records (one writer, group commit).
    let writer: WriteQueue
    /// The verifier and retention (`--appstore-*`).
    let options: FlagService.AppStoreOptions
    /// The key of the subscription hash, read from the store once.
    let subscriptionKey: SubscriptionKeyCache
    /// Refusals are counted here; stored notifications by the writer.
    let metrics: AppStoreMetrics
    /// The client address of a refusal's log line.
    let routeGuard: RouteGuard
    let logger: ServiceLogger

    init(store: FlagStore, snapshots: SnapshotStore, writer: WriteQueue, options: FlagService.AppStoreOptions, metrics: AppStoreMetrics,
         routeGuard: RouteGuard, logger: ServiceLogger) {
        self.store = store
        self.snapshots = snapshots
        self.writer = writer
        self.options = options
        subscriptionKey = SubscriptionKeyCache(store: store)
        self.metrics = metrics
        self.routeGuard = routeGuard
        self.logger = logger
    }

    /// 404 while no root certificate is configured: the receiver is off.
    static let receiverOff = ServiceError(.notFound, code: "appstore_receiver_off",
                                          message: "the App Store notification receiver is off (no --appstore-root-certificate)")

    func addRoutes(to routes: inout ServiceRoutes) {
        routes.limitBody(path: Self.notificationsPath, maxBytes: Self.maxBodyBytes)
        // Exempt from the audit log: a notification is Apple's report, not an operator's action. Each one is logged
        // instead (`appstore_notification`, `appstore_duplicate`, `appstore_refused` with its reason) and counted in
        // /metrics; an audit line per refusal would let anyone on the internet fill the audit table.
        var head: (@Sendable (HTTPRequest, HTTPRequestContext) -> HTTPResponse?)?
        if options.verifier == nil {
            let refusal = Self.receiverOff.response
            head = { _, _ in refusal }
        }
        routes.deferred(.POST, Self.notificationsPath, access: .signedPayload,
                        audit: .exempt("a notification is Apple's report, not an operator's action: logged and counted instead"),
                        head: head) { [self] request, context, _, responder in
            try receive(request, context, responder)
            return nil
        }
        addReads(to: &routes)
        addExperiments(to: &routes)
    }

    /// Verifies the notification and hands its record to the writer, whose answer (after the durable commit) is
    /// the response: 200 `{"stored": true}`, or `false` for a notification stored before.
    func receive(_ request: HTTPRequest, _ context: HTTPRequestContext, _ responder: HTTPResponder) throws(ServiceError) {
        guard let verifier = options.verifier else { throw Self.receiverOff }
        let record = try verify(request, context, verifier)
        writer.submit(WriteJob(notification: record) { outcome in responder.respond(Self.answer(outcome)) })
    }

    /// The response to a notification job's outcome.
    static func answer(_ outcome: WriteOutcome) -> HTTPResponse {
        switch outcome {
        case .notificationStored(let stored):
            return json(["stored": .bool(stored)], headers: [.cacheControl: "no-store"])
        case .failed(let error):
            return error.response
        case .published, .unchanged, .recorded, .changeRan, .changeSkipped:
            return ServiceError(.internalServerError, code: "internal", message: "internal error").response
        }
    }

    /// The record to store for the notification in `request`'s body, or the refusal: 400 with the verification's
    /// reason code (logged with its detail and the client's address, counted; nothing stored), or 503 when the
    /// subscription hash key cannot be read.
    func verify(_ request: HTTPRequest, _ context: HTTPRequestContext,
                _ verifier: SignedPayloadVerifier) throws(ServiceError) -> NotificationRecord {
        let verified: VerifiedNotification
        do {
            verified = try verifier.verifyNotificationBody(request.body)
        } catch {
            let reason = error.reason.rawValue
            metrics.recordRefusal(reason: reason)
            logger.log(.warning, "appstore_refused", ["reason": reason, "detail": error.detail,
                                                      "client": routeGuard.clientAddress(request, context),
                                                      "bytes": "\(request.body.count)"])
            // The detail stays in the log: the answer names the check that failed, not how the payload failed it.
            throw ServiceError(.badRequest, code: reason, message: "the notification was refused: \(reason)")
        }
        let key: [UInt8]
        do {
            key = try subscriptionKey.value()
        } catch {
            logger.log(.error, "appstore_key_unreadable", ["error": "\(error)"])
            throw WriteQueue.notificationStoreFailure(error)
        }
        return NotificationRecord(verified: verified, subscriptionKey: key, receivedAt: ServiceMetrics.wallMilliseconds())
    }
}

/// The subscription hash's key (`FlagStore.subscriptionHashKey()`), read from the store on first use and kept: it
/// never changes, and every node of a shared store reads the same one.
final class SubscriptionKeyCache: Sendable {
    let store: FlagStore
    private let key = PThreadMutex<[UInt8]?>(nil)

    init(store: FlagStore) { self.store = store }

    /// The key; reads the store (off the loop) until a read succeeds.
    func value() throws -> [UInt8] {
        if let key = key.withLock({ $0 }) { return key }
        let read = try store.subscriptionHashKey()
        key.withLock { $0 = read }
        return read
    }
}
