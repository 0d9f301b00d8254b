import FlagClient
import FlagKit
import Foundation

/// The synthetic population of the rehearsal: a deterministic mix (one seed, one population) of standings, install
/// origins, languages and installs that stay offline on their old cache, with the shares written down here.
public struct Population: Sendable {
    /// Shares of each standing, in per mille (sum 1,000). Roughly a health app a few weeks after its paid launch:
    /// most never subscribed; of the subscribers most pay, a few are in a billing problem or cancelled.
    public static let standingShares: [(SyntheticInstall.Standing, Int)] = [
        (.neverSubscribed, 760), (.freeIntro, 60), (.paying, 90), (.gracePeriod, 10), (.billingRetry, 8),
        (.billingRetryLapsed, 7), (.cancelledButActive, 20), (.refunded, 5), (.expired, 40),
    ]
    /// Shares of each origin, in per mille: installs since the switch are the newest fifth, and about one in twelve
    /// has no verified app transaction.
    public static let originShares: [(SyntheticInstall.Origin, Int)] = [(.early, 720), (.late, 200), (.unknown, 80)]
    /// Installs offline on the paid day with the cache written before the first step, in per mille.
    public static let offlinePerMille = 50

    /// The installs.
    public let installs: [SyntheticInstall]

    /// `count` installs around `switchDate` (early ones up to two years before it, late ones up to `daysSince` after it,
    /// `now` being that many days after the switch), from `seed`. The two internal testers' ids of
    /// flags/production.json are the first two installs.
    public init(count: Int, switchDate: Date, daysSince: Int, seed: UInt64 = 0x5E3A_1C0D,
                internalIds: [String] = ["9F1C2D7E-0000-4000-8000-000000000001", "9F1C2D7E-0000-4000-8000-000000000002"]) {
        var random = SplitMix64(seed: seed)
        var installs: [SyntheticInstall] = []
        installs.reserveCapacity(count)
        for index in 0..<count {
            let standing = Self.pick(Self.standingShares, &random)
            let origin = Self.pick(Self.originShares, &random)
            let date: Date?
            switch origin {
            case .early: date = switchDate.addingTimeInterval(-Double(1 + random.next(below: 730 * 86_400)))
            case .late: date = switchDate.addingTimeInterval(Double(1 + random.next(below: max(1, daysSince) * 86_400 - 1)))
            case .unknown: date = nil
            }
            let english = random.next(below: 10) < 3
            let app = AppContext(appVersion: "2.4.0", osVersion: "18.1", platform: "ios", locale: english ? "en-GB" : "de-DE",
                                 country: english ? "GB" : "DE", channel: "appstore")
            let installId = index < internalIds.count ? internalIds[index] : random.nextInstallId()
            installs.append(SyntheticInstall(installId: installId, standing: standing, origin: origin, firstInstallDate: date,
                                             offlineWithOldCache: random.next(below: 1_000) < Self.offlinePerMille, app: app))
        }
        self.installs = installs
    }

    /// One entry of `shares` (per mille), drawn from `random`.
    static func pick<Value>(_ shares: [(Value, Int)], _ random: inout SplitMix64) -> Value {
        var draw = random.next(below: 1_000)
        for (value, share) in shares {
            if draw < share { return value }
            draw -= share
        }
        return shares[shares.count - 1].0
    }
}
