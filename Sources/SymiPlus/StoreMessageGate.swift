/// Holds StoreKit's own messages (`Message.messages`: price increase consent, billing issue) back while the app says
/// it is busy, and lets them through at a calm moment: a sheet asking for a price increase must not cover a journal
/// entry being written. StoreKit shows its messages at launch by default; an app that listens decides when.
///
/// Platform neutral and generic over the message type, so it is tested here with plain values; the SwiftUI relay
/// (`StoreKitMessageRelay`, iOS only) feeds it StoreKit's `Message` and displays what it lets through. Main-actor
/// bound like the UI that calls it.
@MainActor
public final class StoreMessageGate<Message> {
    private var busy: Set<BusyReason> = []
    private var held: [Message] = []

    /// What displays a message (the SwiftUI relay sets StoreKit's `displayStoreKitMessage`); until it is set,
    /// messages are held even at calm moments.
    public var display: (@MainActor (Message) -> Void)? {
        didSet { releaseIfCalm() }
    }

    /// A gate that starts calm, displaying through `display`.
    public init(display: (@MainActor (Message) -> Void)? = nil) {
        self.display = display
    }

    /// Whether no busy reason is active.
    public var isCalm: Bool { busy.isEmpty }
    /// The messages held back, oldest first.
    public var heldMessages: [Message] { held }
    /// The active busy reasons.
    public var busyReasons: Set<BusyReason> { busy }

    /// A message StoreKit delivered: displayed at once when the moment is calm, else held until it is.
    public func receive(_ message: Message) {
        held.append(message)
        releaseIfCalm()
    }

    /// The app became busy for `reason` (several reasons may overlap; each is ended on its own).
    public func beginBusy(_ reason: BusyReason) {
        busy.insert(reason)
    }

    /// `reason` ended: when nothing else keeps the app busy, the held messages are displayed, oldest first.
    public func endBusy(_ reason: BusyReason) {
        busy.remove(reason)
        releaseIfCalm()
    }

    private func releaseIfCalm() {
        guard isCalm, let display else { return }
        let ready = held
        held.removeAll()
        for message in ready { display(message) }
    }
}

/// Why the app is busy. A moment is calm when no reason is active.
public struct BusyReason: Hashable, Sendable, RawRepresentable {
    /// The reason's name.
    public let rawValue: String
    /// A reason by name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Writing a journal entry: never interrupt it.
    public static let journalEntry = BusyReason(rawValue: "journalEntry")
    /// Exporting a report (the share sheet may be up).
    public static let export = BusyReason(rawValue: "export")
    /// Onboarding, before the user has seen the app.
    public static let onboarding = BusyReason(rawValue: "onboarding")
}
