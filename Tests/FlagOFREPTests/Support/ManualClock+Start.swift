import Foundation
import TestSupport

extension ManualClock {
    /// A clock one second after its epoch: the rate limiter's readings start above zero, as a monotonic clock's do.
    convenience init() { self.init(Date(timeIntervalSince1970: 1)) }
}
