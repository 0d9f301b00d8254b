/// An event to deliver to the webhooks that subscribed to it (`FlagStore.enqueueWebhookEvent`). The caller
/// builds the delivery body, `{"id", "type", "createdAt", "environment", "data"}`, once; every webhook gets
/// the same bytes and the same id (`Symi-Webhook-Id`, for de-duplication on the receiver's side).
public struct WebhookEvent: Sendable, Equatable {
    /// `evt_` and 26 characters (`makeID`); unique.
    public var id: String
    /// One of `WebhookEvent.types`.
    public var type: String
    /// The environment it is about, when there is one.
    public var environment: String?
    /// The request body to POST, exactly as it will be signed.
    public var payload: [UInt8]
    /// When it happened (milliseconds since 1970 UTC); the first attempt is due then.
    public var createdAtMilliseconds: Int64

    /// An event; see each property.
    public init(id: String, type: String, environment: String?, payload: [UInt8], createdAtMilliseconds: Int64) {
        self.id = id
        self.type = type
        self.environment = environment
        self.payload = payload
        self.createdAtMilliseconds = createdAtMilliseconds
    }

    /// The event types a webhook may subscribe to (`docs/governance.md`, "Webhooks"); `*` subscribes to all.
    public static let types: Set<String> = [
        "version.published", "change.scheduled", "change.applied", "change.conflicted", "change.failed",
        "change.cancelled", "request.created", "request.approved", "request.rejected", "request.expired",
        "request.stale", "policy.updated", "guard.added", "guard.held", "guard.tripped", "guard.acted", "guard.overridden",
        "guard.closed", "guard.removed",
    ]

    /// A new event id: `evt_` and a ULID (48 bits of the time in milliseconds, then 80 random bits from the OS,
    /// in Crockford's base32): unique, and sorted by time as text.
    public static func makeID(atMilliseconds milliseconds: Int64) -> String {
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
        var generator = SystemRandomNumberGenerator()
        let time = UInt64(clamping: max(milliseconds, 0)) & 0xFFFF_FFFF_FFFF
        let high = UInt64.random(in: 0...UInt64(0xFFFF), using: &generator)
        let low = UInt64.random(in: .min ... .max, using: &generator)
        // 128 bits: time (48) | random (80), read 5 bits at a time from the top, after 2 leading zero bits.
        let upper = (time << 16) | high
        var characters: [UInt8] = []
        for index in 0..<26 {
            let bit = index * 5 - 2  // position of this character's first bit in the 128-bit value
            var value: UInt64 = 0
            for offset in 0..<5 {
                let position = bit + offset
                guard position >= 0 else { continue }
                let word = position < 64 ? upper : low
                value = (value << 1) | ((word >> UInt64(63 - position % 64)) & 1)
            }
            characters.append(alphabet[Int(value)])
        }
        return "evt_" + String(decoding: characters, as: UTF8.self)
    }
}
