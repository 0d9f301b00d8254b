import AppStoreNotifications

extension FlagService {
    /// App Store Server Notifications V2 (`docs/appstore.md`): the receiver at `POST /v1/appstore/notifications`,
    /// and how long what it stored is kept; and the key that signs the experiment arms' promotional offers.
    public struct AppStoreOptions: Sendable {
        /// The records' retention when none is given: a little more than a year, so a yearly subscription's whole
        /// period and its renewal are in view.
        public static let defaultRetentionDays = 400

        /// Checks each received notification (roots, bundle, app, environments); nil: the receiver is off, its
        /// route answers 404 and the server logs `appstore_receiver_off` at start. The reads and the retention
        /// work either way (records stored earlier stay readable until they age out).
        public var verifier: SignedPayloadVerifier?
        /// Records signed more than this many days ago are deleted (at most once an hour, by the node that runs
        /// the jobs); the outcomes read the history from then on.
        public var retentionDays: Int
        /// Signs the promotional offers that experiment arms name (`POST /v1/environments/{env}/offer-signatures`,
        /// docs/guards.md "Running an experiment"); nil: the route answers 503 `offer_signing_unavailable`.
        public var offerSigner: PromotionalOfferSigner?

        /// The receiver off, the default retention, no offer signing unless `offerSigner` is given.
        public init(verifier: SignedPayloadVerifier? = nil, retentionDays: Int = AppStoreOptions.defaultRetentionDays,
                    offerSigner: PromotionalOfferSigner? = nil) {
            self.verifier = verifier
            self.retentionDays = retentionDays
            self.offerSigner = offerSigner
        }

        /// The oldest `signedDate` kept at `now` (ms since 1970 UTC).
        func retentionStart(now: Int64) -> Int64 {
            now - Int64(max(0, retentionDays)) * 86_400_000
        }
    }
}
