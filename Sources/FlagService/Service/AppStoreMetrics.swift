import AppStoreNotifications
import ServerLock

/// The App Store notification receiver's counters for `/metrics`: notifications stored by type and subtype, the
/// outcomes they count by metric and product (`OutcomeMetric.counted(for:)`: what an alert on refunds or starts
/// watches; conversions and `active` need a subscription's history and are the outcomes API's), the ones Apple sent
/// again (already stored), and refusals by reason code. Counted under one lock: a notification is
/// rare next to a request, and the labels are strings.
final class AppStoreMetrics: Sendable {
    struct Counts {
        /// By `notificationType` and `subtype` ("" for none).
        var stored: [Labels: Int] = [:]
        var duplicates = 0
        /// By `AppStoreVerificationError.Reason` raw value.
        var refusals: [String: Int] = [:]
        /// By outcome metric and product ("" for none).
        var outcomes: [OutcomeLabels: Int] = [:]
    }

    struct OutcomeLabels: Hashable, Comparable {
        var metric: String
        var product: String

        static func < (a: OutcomeLabels, b: OutcomeLabels) -> Bool { (a.metric, a.product) < (b.metric, b.product) }
    }

    struct Labels: Hashable, Comparable {
        var type: String
        var subtype: String

        static func < (a: Labels, b: Labels) -> Bool { (a.type, a.subtype) < (b.type, b.subtype) }
    }

    /// Most type and subtype pairs kept apart: Apple documents a few dozen, and only a verified notification
    /// adds one, but the exposition must stay bounded whatever a payload names; the rest are counted as `other`.
    static let labelCapacity = 256

    private let counts = PThreadMutex(Counts())

    /// A notification stored now (not one already stored).
    func recordStored(type: String, subtype: String?) {
        counts.withLock { counts in
            var labels = Labels(type: type, subtype: subtype ?? "")
            if counts.stored[labels] == nil && counts.stored.count >= Self.labelCapacity { labels = Labels(type: "other", subtype: "other") }
            counts.stored[labels, default: 0] += 1
        }
    }

    /// A notification stored now: its type and subtype, and the outcomes it counts.
    func recordStored(_ record: NotificationRecord) {
        recordStored(type: record.notificationType, subtype: record.subtype)
        let metrics = OutcomeMetric.counted(for: record)
        guard !metrics.isEmpty else { return }
        counts.withLock { counts in
            for metric in metrics {
                var labels = OutcomeLabels(metric: metric.rawValue, product: record.productID ?? "")
                // Products come from verified payloads (the app's catalogue), yet the exposition stays bounded.
                if counts.outcomes[labels] == nil && counts.outcomes.count >= Self.labelCapacity {
                    labels = OutcomeLabels(metric: metric.rawValue, product: "other")
                }
                counts.outcomes[labels, default: 0] += 1
            }
        }
    }

    /// A notification whose `notificationUUID` was stored already: answered 200 again, stored once.
    func recordDuplicate() {
        counts.withLock { $0.duplicates += 1 }
    }

    /// A notification refused with `reason` (nothing stored).
    func recordRefusal(reason: String) {
        counts.withLock { $0.refusals[reason, default: 0] += 1 }
    }

    /// The counters' exposition text (Prometheus text format 0.0.4).
    func exposition() -> String {
        let now = counts.withLock { $0 }
        var out = "# HELP flagserver_appstore_notifications_total App Store notifications stored, by type and subtype.\n"
        out += "# TYPE flagserver_appstore_notifications_total counter\n"
        for (labels, count) in now.stored.sorted(by: { $0.key < $1.key }) {
            out += "flagserver_appstore_notifications_total{type=\"\(Self.escaped(labels.type))\",subtype=\"\(Self.escaped(labels.subtype))\"} \(count)\n"
        }
        out += "# HELP flagserver_appstore_outcomes_total Outcomes counted from stored App Store notifications, by metric and product (docs/appstore.md).\n"
        out += "# TYPE flagserver_appstore_outcomes_total counter\n"
        for (labels, count) in now.outcomes.sorted(by: { $0.key < $1.key }) {
            out += "flagserver_appstore_outcomes_total{metric=\"\(Self.escaped(labels.metric))\",product=\"\(Self.escaped(labels.product))\"} \(count)\n"
        }
        out += "# HELP flagserver_appstore_duplicates_total App Store notifications received again after they were stored (answered 200, stored once).\n"
        out += "# TYPE flagserver_appstore_duplicates_total counter\n"
        out += "flagserver_appstore_duplicates_total \(now.duplicates)\n"
        out += "# HELP flagserver_appstore_refusals_total App Store notifications refused (400, nothing stored), by reason.\n"
        out += "# TYPE flagserver_appstore_refusals_total counter\n"
        for (reason, count) in now.refusals.sorted(by: { $0.key < $1.key }) {
            out += "flagserver_appstore_refusals_total{reason=\"\(Self.escaped(reason))\"} \(count)\n"
        }
        return out
    }

    /// A label value as the text format writes it: backslash, double quote and line feed escaped.
    static func escaped(_ value: String) -> String {
        guard value.contains(where: { $0 == "\\" || $0 == "\"" || $0 == "\n" }) else { return value }
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}
