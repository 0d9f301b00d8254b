import SymiPlus
import TestSupport

/// The purchase manager's clock in these tests: moved by hand from the fixtures' fixed date.
extension ManualClock: PurchaseClock {
    /// A clock showing `Fixtures.now`.
    convenience init() { self.init(Fixtures.now) }
}
