import Testing
@testable import FlagStore

/// What `flagserver copy` prints.
@Suite struct CopyReportTests {
    static func report(_ rows: [String: Int], revoked: Int = 0, verified: Int = 0) -> CopyReport {
        CopyReport(source: "data/flags.sqlite", target: "postgresql://flags:***@db/flags", rows: rows, revokedTokens: revoked,
                   epoch: 1_764_000_000_000, verifiedHashes: verified, seconds: 1.234)
    }

    @Test func namesEveryTableWithItsCountAndWhatWasVerified() {
        let summary = Self.report(["environments": 4, "versions": 120, "tokens": 5, "audit": 230, "changes": 9, "policies": 1,
                                   "webhooks": 2, "webhook_deliveries": 6, "webhook_attempts": 8, "meta": 1], revoked: 2, verified: 120).summary
        #expect(summary == """
            copied 120 versions in 4 environments (epoch 1764000000000), 5 tokens (2 revoked), 230 audit records, 9 changes, \
            1 policy, 2 webhooks, 6 webhook deliveries with 8 attempts
            from data/flags.sqlite into postgresql://flags:***@db/flags;
            every row compared, every version's hash verified (120 of 120), in 1.23 s

            """)
    }

    @Test func singularsNoRevocationsForNoTokensAndTablesItDoesNotNameByName() {
        let summary = Self.report(["environments": 1, "versions": 1, "webhook_deliveries": 1, "webhook_attempts": 1, "later_table": 3],
                                  verified: 1).summary
        #expect(summary.hasPrefix("copied 1 version in 1 environment (epoch 1764000000000), 0 tokens, 0 audit records, 0 changes, "
            + "0 policies, 0 webhooks, 1 webhook delivery with 1 attempt, 3 rows of later_table\n"))
        #expect(summary.contains("(1 of 1)"))
    }

    @Test func appStoreNotificationsAreNamedWithTheKeyWhenThereIsOne() {
        let withKey = Self.report(["versions": 1, "appstore_notifications": 40, "appstore_keys": 1], verified: 1).summary
        #expect(withKey.contains(", 40 App Store notifications with the subscription hash's key\n"), "\(withKey)")
        #expect(!withKey.contains("rows of appstore"))
        let one = Self.report(["versions": 1, "appstore_notifications": 1, "appstore_keys": 0], verified: 1).summary
        #expect(one.contains(", 1 App Store notification\n"), "\(one)")
    }
}
