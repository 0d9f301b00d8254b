import Testing
@testable import SymiPlus

/// The one error type keeps its cause.
@Suite struct StoreErrorTests {
    struct Underlying: Error, CustomStringConvertible {
        var description: String { "StoreKitError.networkError(-1009)" }
    }

    @Test func keepsTheCause() {
        let error = StoreError(.productsUnavailable, causedBy: Underlying())
        #expect(error.kind == .productsUnavailable)
        #expect(error.cause == "StoreKitError.networkError(-1009)")
        #expect(error.description == "productsUnavailable: StoreKitError.networkError(-1009)")
    }
}
