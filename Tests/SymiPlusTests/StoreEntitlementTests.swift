import Foundation
import Testing
@testable import SymiPlus

/// When a verified transaction grants access.
@Suite struct StoreEntitlementTests {
    @Test func activeUntilExpiredOrRevoked() {
        let entitlement = Fixtures.entitlement(expires: Fixtures.inAMonth)
        #expect(entitlement.isActive(at: Fixtures.now))
        #expect(entitlement.isActive(at: Fixtures.inAMonth.addingTimeInterval(-1)))
        #expect(!entitlement.isActive(at: Fixtures.inAMonth), "the expiration instant is already past")
        #expect(!Fixtures.entitlement(revoked: Fixtures.now.addingTimeInterval(3_600)).isActive(at: Fixtures.now),
                "revoked is revoked, whatever the date")
        #expect(Fixtures.entitlement(expires: nil).isActive(at: .distantFuture))
    }
}
