import FlagKit

/// The `Symi-Webhook-Signature` of a delivery attempt (`docs/api.md`, "Webhooks"; Stripe's scheme):
/// `t=<unix seconds>,v1=<lowercase hex HMAC-SHA256(secret, "<t>." + body)>`.
///
/// The timestamp is inside what is signed, so a receiver that refuses a `t` far from its clock refuses a
/// replayed delivery too; `v1` names the scheme, so a later one can be sent beside it while receivers move.
public enum WebhookSignature {
    /// The header value for `body` sent at `timestamp` (Unix seconds) to a webhook with `secret`.
    public static func header(secret: String, timestamp: Int64, body: [UInt8]) -> String {
        "t=\(timestamp),v1=" + HMACSHA256.hexAuthenticationCode(key: Array(secret.utf8), message: signedBytes(timestamp: timestamp, body: body))
    }

    /// The bytes the code is computed over: the timestamp in decimal, a dot, and the body exactly as sent.
    public static func signedBytes(timestamp: Int64, body: [UInt8]) -> [UInt8] {
        Array("\(timestamp).".utf8) + body
    }

    /// Whether `header` is a valid signature of `body` under `secret` made within `tolerance` seconds of `now`
    /// (the receiver's side of the recipe, for tests and Swift receivers): every `v1` of the header is tried,
    /// each compared in constant time.
    public static func isValid(header: String, body: [UInt8], secret: String, now: Int64, tolerance: Int64 = 300) -> Bool {
        var timestamp: Int64?
        var codes: [[UInt8]] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = Int64(pair[1]) }
            if pair[0] == "v1", let code = bytes(hex: pair[1]) { codes.append(code) }
        }
        guard let timestamp, abs(now - timestamp) <= tolerance else { return false }
        let message = signedBytes(timestamp: timestamp, body: body)
        return codes.contains { HMACSHA256.isValid(code: $0, key: Array(secret.utf8), message: message) }
    }

    /// 64 lowercase hex digits as 32 bytes, or nil.
    static func bytes(hex: Substring) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count == 2 * HMACSHA256.codeSize else { return nil }
        var result: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            result.append(high << 4 | low)
        }
        return result
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
