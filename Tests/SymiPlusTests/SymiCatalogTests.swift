import SymiCatalog
import Testing

/// The catalogue: the brief's product ids, and how the server's list is filtered against it.
@Suite struct SymiCatalogTests {
    @Test func productsAndGroup() {
        #expect(SymiCatalog.products.map(\.id) == ["symi_plus_monthly", "symi_plus_yearly"])
        #expect(SymiCatalog.monthly.recurringPeriod == "P1M" && SymiCatalog.yearly.recurringPeriod == "P1Y")
        #expect(SymiCatalog.subscriptionGroupName == "Symi Plus")
        #expect(SymiCatalog.product(withId: "symi_plus_yearly") == SymiCatalog.yearly)
        #expect(SymiCatalog.product(withId: "symi_plus_weekly") == nil)
    }

    @Test func selectKeepsTheServersOrderAndReportsUnknownIds() {
        let selection = SymiCatalog.select(["symi_plus_yearly", "Symi_Plus_Monthly", "symi_plus_monthly", "symi_plus_yearly", "x", "x"])
        #expect(selection.offered == ["symi_plus_yearly", "symi_plus_monthly"])
        #expect(selection.unknown == ["Symi_Plus_Monthly", "x"])
        #expect(SymiCatalog.select([]) == .init(offered: [], unknown: []))
    }
}
