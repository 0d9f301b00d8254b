/// Facts about Symi's flags that more than one module checks: the app's client (`FlagClient`'s `FlagSnapshot`, which
/// reads and clamps the values) and `flagctl lint` (which warns about values the app would not take as written).
/// Written down once here, in the module both link, so that the lint's warning and the app's behaviour cannot drift
/// apart; `flagctl` does not link the app's client (docs/architecture.md).
public enum SymiFlags {
    /// `billingRetryAccessDays`: how many days after the paid period a subscriber whose renewal payment failed keeps
    /// Symi Plus while Apple retries (docs/monetization.md). Its safe default is `SymiSafeDefaults` (FlagClient).
    public enum BillingRetryAccessDays {
        /// The flag's key.
        public static let key = "billingRetryAccessDays"
        /// The days the app accepts: 0 turns the courtesy window off; Apple retries a failed renewal for up to 60 days,
        /// so a longer window could only ever apply to subscriptions Apple has given up on.
        public static let range: ClosedRange<Int> = 0...60

        /// What the app uses for a flag value of `days`: `days` clamped to ``range``.
        public static func clamped(_ days: Int64) -> Int {
            Int(min(max(days, Int64(range.lowerBound)), Int64(range.upperBound)))
        }
    }
}
