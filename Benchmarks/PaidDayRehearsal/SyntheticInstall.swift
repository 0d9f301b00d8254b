import FlagClient
import FlagKit
import Foundation
import SymiCatalog
import SymiPlus

/// One install of the rehearsal's synthetic population: what the App Store knows about it (as the verified facts
/// ``SymiPlusAccess`` reads), when it was first downloaded (or that this is unknown), and how it reaches the flags.
public struct SyntheticInstall: Sendable {
    /// Where the install stands with Symi Plus on the rehearsal's day.
    public enum Standing: String, Sendable, CaseIterable, Comparable {
        /// Never bought anything.
        case neverSubscribed = "never subscribed"
        /// In the free introductory offer.
        case freeIntro = "free intro"
        /// Paying, renewing.
        case paying
        /// Renewal failed; Apple's billing grace period runs.
        case gracePeriod = "grace period"
        /// Renewal failed, no grace; in Apple's billing retry, inside the `billingRetryAccessDays` window.
        case billingRetry = "billing retry"
        /// In Apple's billing retry past the courtesy window: no longer paid for (not a subscriber).
        case billingRetryLapsed = "billing retry, lapsed"
        /// Turned renewal off; active until the period ends.
        case cancelledButActive = "cancelled, active"
        /// Refunded mid-period (revoked).
        case refunded
        /// Expired a while ago.
        case expired

        /// Whether the install pays (or is in a period Apple or the flags keep open): the ones the paid day must
        /// never lock out.
        public var isSubscriber: Bool {
            switch self {
            case .freeIntro, .paying, .gracePeriod, .billingRetry, .cancelledButActive: true
            case .neverSubscribed, .billingRetryLapsed, .refunded, .expired: false
            }
        }

        /// Declaration order.
        public static func < (lhs: Standing, rhs: Standing) -> Bool {
            (allCases.firstIndex(of: lhs) ?? 0) < (allCases.firstIndex(of: rhs) ?? 0)
        }
    }

    /// When the install was first downloaded, relative to the switch.
    public enum Origin: String, Sendable, CaseIterable, Comparable {
        /// Before the switch: an early user, to be kept open.
        case early
        /// After the switch.
        case late
        /// No verified `AppTransaction` (offline at first launch, not signed in, an app version without the attribute).
        case unknown

        /// Declaration order.
        public static func < (lhs: Origin, rhs: Origin) -> Bool { (allCases.firstIndex(of: lhs) ?? 0) < (allCases.firstIndex(of: rhs) ?? 0) }
    }

    /// The install id (bucketing).
    public var installId: String
    /// Symi Plus standing.
    public var standing: Standing
    /// Early, late or unknown.
    public var origin: Origin
    /// The verified first download date (`nil` when ``origin`` is unknown).
    public var firstInstallDate: Date?
    /// Offline on the paid day: the flags come from the cache written before the first step, and the store cannot be
    /// asked (the decision of its last online launch is kept).
    public var offlineWithOldCache: Bool
    /// The app's context without the install date.
    public var app: AppContext

    /// An install from its parts.
    public init(installId: String, standing: Standing, origin: Origin, firstInstallDate: Date?, offlineWithOldCache: Bool,
                app: AppContext) {
        self.installId = installId
        self.standing = standing
        self.origin = origin
        self.firstInstallDate = firstInstallDate
        self.offlineWithOldCache = offlineWithOldCache
        self.app = app
    }

    /// The install's origin as the app reads it (``InstallOrigin``).
    public var installOrigin: InstallOrigin {
        firstInstallDate.map { InstallOrigin.verified(firstInstallDate: $0, originalAppVersion: "230") }
            ?? .unknown("no verified app transaction")
    }

    /// The flags' evaluation context, built as the app builds it (``AppContext/with(_:)``).
    public var evaluationContext: EvaluationContext { app.with(installOrigin).evaluationContext(installId: installId) }
}
