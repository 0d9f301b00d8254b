import Testing
@testable import SymiPlus

/// StoreKit's messages held back while the app is busy (a journal entry) and shown at a calm moment.
@MainActor
@Suite struct StoreMessageGateTests {
    final class Shown {
        var messages: [String] = []
    }

    func gate() -> (StoreMessageGate<String>, Shown) {
        let shown = Shown()
        return (StoreMessageGate<String> { shown.messages.append($0) }, shown)
    }

    @Test func aCalmMomentShowsAMessageAtOnce() {
        let (gate, shown) = gate()
        gate.receive("billingIssue")
        #expect(shown.messages == ["billingIssue"])
        #expect(gate.heldMessages.isEmpty && gate.isCalm)
    }

    @Test func writingAJournalEntryHoldsMessagesUntilItEnds() {
        let (gate, shown) = gate()
        gate.beginBusy(.journalEntry)
        gate.receive("priceIncreaseConsent")
        gate.receive("billingIssue")
        #expect(shown.messages.isEmpty, "nothing covers the entry being written")
        #expect(gate.heldMessages == ["priceIncreaseConsent", "billingIssue"])
        gate.endBusy(.journalEntry)
        #expect(shown.messages == ["priceIncreaseConsent", "billingIssue"], "shown oldest first once calm")
        #expect(gate.heldMessages.isEmpty)
        gate.endBusy(.journalEntry)
        #expect(shown.messages.count == 2, "each message is shown once")
    }

    @Test func overlappingBusyMomentsMustAllEnd() {
        let (gate, shown) = gate()
        gate.beginBusy(.journalEntry)
        gate.beginBusy(.export)
        gate.receive("billingIssue")
        gate.endBusy(.journalEntry)
        #expect(shown.messages.isEmpty && !gate.isCalm && gate.busyReasons == [.export])
        gate.endBusy(.export)
        #expect(shown.messages == ["billingIssue"])
    }

    @Test func withoutADisplayMessagesWaitForOne() {
        let gate = StoreMessageGate<String>()
        gate.receive("generic")
        #expect(gate.heldMessages == ["generic"])
        let shown = Shown()
        gate.display = { shown.messages.append($0) }
        #expect(shown.messages == ["generic"] && gate.heldMessages.isEmpty)
        gate.beginBusy(.onboarding)
        gate.display = { shown.messages.append("second display: " + $0) }
        gate.receive("billingIssue")
        #expect(shown.messages == ["generic"], "setting a display while busy shows nothing")
    }
}
