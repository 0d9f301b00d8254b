import FlagKit
import FlagServiceTestSupport
import FlagStore
import Foundation
import TestSupport
import Testing
@testable import FlagService

/// The policies the writer reads: loaded from the store, replaced by `install`, the default for the rest.
@Suite struct PolicyTableTests {
    @Test func loadsEveryStoredPolicyAndDefaultsTheRest() throws {
        try withTemporaryStore { store in
            try FlagService.seed(store: store, flagsDirectory: repositoryRoot.appendingPathComponent("flags").path,
                                 logger: ServiceLogger(minimumLevel: .off))
            let protected = EnvironmentPolicy(requestTTLHours: 2, flags: ["b": FlagPolicy(isProtected: true), "a": FlagPolicy(isProtected: true),
                                                                          "o": FlagPolicy(owner: "team")])
            try store.setPolicy(environment: "production", policy: protected, actor: "test")
            let table = PolicyTable()
            #expect(table.policy("production") == .default)
            try table.load(from: store)
            #expect(table.policy("production") == protected)
            #expect(table.entry("production").protectedKeys == ["a", "b"])
            #expect(table.entry("production").protectsAnything)
            #expect(table.policy("staging") == .default)
            #expect(!table.entry("staging").protectsAnything)
            #expect(table.policy("nowhere") == .default)
            table.install(EnvironmentPolicy(isProtected: true), environment: "staging")
            #expect(table.entry("staging").protectsAnything)
            #expect(table.entry("staging").protectedKeys.isEmpty, "a protected environment needs no list")
            // Owners and dates alone protect nothing.
            #expect(!PolicyTable.Entry(EnvironmentPolicy(flags: ["x": FlagPolicy(owner: "o", removeAfter: CalendarDate(year: 2027, month: 1, day: 1))])).protectsAnything)
        }
    }
}
