#if canImport(SwiftUI) && canImport(StoreKit) && os(iOS)
import StoreKit
import SwiftUI

/// Listens to StoreKit's messages (`Message.messages`, iOS 16) for the whole app and displays each one through a
/// ``StoreMessageGate``: at once when the moment is calm, else once the app's busy moment (a journal entry) ends.
///
/// NOT COMPILED ON THE LINUX MACHINES THAT BUILD THIS PACKAGE (no SwiftUI or StoreKit there); the gate's logic is
/// platform neutral and tested (docs/monetization.md lists this file). Attach it once near the root:
/// `rootView.modifier(StoreKitMessageRelay(gate: gate))`, and call
/// `gate.beginBusy(.journalEntry)` / `gate.endBusy(.journalEntry)` around the editor.
@available(iOS 16.0, *)
public struct StoreKitMessageRelay: ViewModifier {
    private let gate: StoreMessageGate<Message>
    @Environment(\.displayStoreKitMessage) private var displayStoreKitMessage

    /// The relay through `gate`.
    public init(gate: StoreMessageGate<Message>) {
        self.gate = gate
    }

    /// The content, listening from its first appearance.
    public func body(content: Content) -> some View {
        content.task {
            let display = displayStoreKitMessage
            gate.display = { message in
                // StoreKit decides whether the message still applies; a failure has nothing to show the user (StoreKit
                // shows the message again at a later launch if it still matters).
                try? display(message)
            }
            for await message in Message.messages { gate.receive(message) }
        }
    }
}
#endif
